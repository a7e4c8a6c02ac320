import CCurl
import Foundation
import SluiceCore

/// What libcurl reports about an easy handle's attempt, read with `curl_easy_getinfo` (engine thread):
/// the only place a transfer reads its handle.
struct EasyHandleInfo {
    let easy: UnsafeMutableRawPointer

    /// Whether the attempt got a usable connection (new or reused, TLS included): curl records a
    /// pre-transfer time only once the request could be sent.
    var isConnected: Bool { offset(CURLINFO_PRETRANSFER_TIME_T) > 0 }

    /// Bytes moved so far, head included, or `nil` before the connection was made: what the idle watch
    /// samples.
    var bytesMoved: Int64? {
        guard isConnected else { return nil }
        var head = 0
        sluice_easy_getinfo_long(easy, CURLINFO_HEADER_SIZE, &head)
        return Int64(head) + offset(CURLINFO_SIZE_DOWNLOAD_T) + offset(CURLINFO_SIZE_UPLOAD_T)
    }

    /// The bytes of request head libcurl sent in this attempt (`CURLINFO_REQUEST_SIZE`): 0 when nothing went out.
    var requestHeadBytes: Int {
        var value = 0
        sluice_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &value)
        return value
    }

    /// OpenSSL's verification result for the peer's chain.
    var verifyResult: Int {
        var value = 0
        sluice_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &value)
        return value
    }

    /// The attempt's transaction metrics, for `url` answered by `head` (if any).
    func transaction(url: URL, head: ResponseHead?) -> TaskMetrics.Transaction {
        var connects = 0
        sluice_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        var port = 0
        sluice_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &port)
        var address: UnsafePointer<CChar>?
        sluice_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &address)
        let remote = address.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return .init(
            url: url, statusCode: head?.statusCode ?? 0, httpVersion: head.map { $0.httpVersion.rawValue },
            nameLookup: seconds(CURLINFO_NAMELOOKUP_TIME_T), connect: seconds(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: seconds(CURLINFO_APPCONNECT_TIME_T), timeToFirstByte: seconds(CURLINFO_STARTTRANSFER_TIME_T),
            total: seconds(CURLINFO_TOTAL_TIME_T), bytesSent: offset(CURLINFO_SIZE_UPLOAD_T),
            bytesReceived: offset(CURLINFO_SIZE_DOWNLOAD_T), reusedConnection: connects == 0 && remote != nil,
            remoteAddress: remote, remotePort: port > 0 ? port : nil)
    }

    private func seconds(_ info: CURLINFO) -> TimeInterval { TimeInterval(offset(info)) / 1_000_000 }

    private func offset(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        sluice_easy_getinfo_off_t(easy, info, &value)
        return Int64(value)
    }
}

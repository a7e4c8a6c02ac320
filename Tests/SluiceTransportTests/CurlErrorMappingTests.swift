import CCurl
import Foundation
import SluiceCore
@testable import SluiceTransport
import Testing

/// libcurl's result codes and what each means to a caller, with no socket.
@Suite("curl code mapping")
struct CurlErrorMappingTests {
    @Test("each curl code maps to its stable code", arguments: [
        (CURLE_COULDNT_RESOLVE_HOST, SluiceError.Code.cannotResolveHost), (CURLE_COULDNT_RESOLVE_PROXY, .cannotResolveHost),
        (CURLE_COULDNT_CONNECT, .cannotConnect), (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .pinnedKeyMismatch),
        (CURLE_SSL_CERTPROBLEM, .invalidClientIdentity), (CURLE_SSL_CONNECT_ERROR, .tlsFailed), (CURLE_SSL_CIPHER, .tlsFailed),
        (CURLE_USE_SSL_FAILED, .tlsFailed), (CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects), (CURLE_RECV_ERROR, .connectionLost),
        (CURLE_SEND_ERROR, .connectionLost), (CURLE_PARTIAL_FILE, .connectionLost), (CURLE_GOT_NOTHING, .connectionLost),
        (CURLE_HTTP2, .connectionLost), (CURLE_HTTP2_STREAM, .connectionLost), (CURLE_WEIRD_SERVER_REPLY, .connectionLost),
        (CURLE_ABORTED_BY_CALLBACK, .cancelled), (CURLE_READ_ERROR, .bodyStreamFailed), (CURLE_RANGE_ERROR, .downloadFailed),
        (CURLE_BAD_DOWNLOAD_RESUME, .downloadFailed), (CURLE_OUT_OF_MEMORY, .transportFailed), (CURLE_URL_MALFORMAT, .transportFailed),
    ])
    func codes(curl: CURLcode, expected: SluiceError.Code) {
        #expect(CurlErrorMapping.code(for: curl, message: "", connected: true, elapsed: 1, resourceTimeout: nil).code == expected)
    }

    @Test("an answer without a status line (libcurl: HTTP/0.9 not allowed) is invalidResponse; other unsupported protocols are not")
    func noStatusLine() {
        #expect(CurlErrorMapping.code(for: CURLE_UNSUPPORTED_PROTOCOL, message: "Received HTTP/0.9 when not allowed", connected: true,
                                      elapsed: 1, resourceTimeout: nil).code == .invalidResponse)
        #expect(CurlErrorMapping.code(for: CURLE_UNSUPPORTED_PROTOCOL, message: "Protocol \"gopher\" not supported", connected: false,
                                      elapsed: 0, resourceTimeout: nil).code == .transportFailed)
    }

    @Test("a timeout: resource when the task's time ran out, too slow for the rate check, connect before a connection, idle after", arguments: [
        ("", false, 1.0, nil as Double?, SluiceError.Code.connectTimedOut), ("", true, 1.0, nil, .idleTimedOut),
        ("", true, 10.0, 10.0, .resourceTimedOut), ("", false, 9.9, 10.0, .resourceTimedOut), ("", true, 5.0, 10.0, .idleTimedOut),
        ("Operation too slow. Less than 100 bytes/sec transferred the last 2 seconds", true, 3.0, 604_800.0, .transferTooSlow),
        ("Operation too slow. Less than 100 bytes/sec transferred the last 2 seconds", true, 10.0, 10.0, .resourceTimedOut),
    ])
    func timeouts(message: String, connected: Bool, elapsed: Double, resource: Double?, expected: SluiceError.Code) {
        #expect(CurlErrorMapping.code(for: CURLE_OPERATION_TIMEDOUT, message: message, connected: connected, elapsed: elapsed,
                                      resourceTimeout: resource).code == expected)
    }

    @Test("verification failures by OpenSSL's result and the kind of trust store", arguments: [
        (Int(X509_V_ERR_HOSTNAME_MISMATCH), false, "", SluiceError.Code.hostMismatch),
        (0, false, "SSL: no alternative certificate subject name matches target host name 'x'", .hostMismatch),
        (Int(X509_V_ERR_CERT_HAS_EXPIRED), false, "", .certificateExpired), (Int(X509_V_ERR_CERT_NOT_YET_VALID), false, "", .certificateNotYetValid),
        (Int(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT), false, "", .untrustedChain),
        (Int(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT), true, "", .pinnedCertificateMissing),
        (Int(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY), true, "", .pinnedCertificateMissing), (999, false, "", .untrustedChain),
    ])
    func verification(result: Int, pinned: Bool, message: String, expected: SluiceError.Code) {
        let mapped = CurlErrorMapping.code(
            for: CURLE_PEER_FAILED_VERIFICATION, message: message, connected: false, elapsed: 0, resourceTimeout: nil,
            trust: .init(verifyResult: result, anchorsArePinned: pinned))
        #expect(mapped.code == expected)
    }

    @Test("a client certificate refused or missing", arguments: [
        (CURLE_SSL_CONNECT_ERROR, "error:0A00045C:SSL routines::tlsv13 alert certificate required", false, SluiceError.Code.clientCertificateRejected),
        (CURLE_RECV_ERROR, "OpenSSL SSL_read: ssl/record/rec_layer_s3.c: alert bad certificate", false, .clientCertificateRejected),
        (CURLE_RECV_ERROR, "Connection reset by peer", true, .clientCertificateRejected),
        (CURLE_GOT_NOTHING, "", true, .clientCertificateRejected), (CURLE_RECV_ERROR, "Connection reset by peer", false, .connectionLost),
        (CURLE_COULDNT_CONNECT, "alert bad certificate", false, .cannotConnect),
    ])
    func clientCertificates(curl: CURLcode, message: String, missing: Bool, expected: SluiceError.Code) {
        let mapped = CurlErrorMapping.code(
            for: curl, message: message, connected: true, elapsed: 0, resourceTimeout: nil, trust: .init(clientCertificateMissing: missing))
        #expect(mapped.code == expected)
    }
}

/// When a `401` asks the challenge handler, with no socket.
@Suite("Authentication retry planner")
struct AuthenticationRetryPlannerTests {
    @Test("only a 401, once, with a handler, for a task that is not a stream", arguments: [
        (401, SessionTask.Kind.data, false, true, true), (401, .upload, false, true, true), (401, .download, false, true, true),
        (401, .stream, false, true, false), (401, .data, true, true, false), (401, .data, false, false, false),
        (403, .data, false, true, false), (407, .data, false, true, false), (200, .data, false, true, false),
    ])
    func asks(status: Int, kind: SessionTask.Kind, asked: Bool, handler: Bool, expected: Bool) {
        #expect(AuthenticationRetryPlanner.asksHandler(statusCode: status, kind: kind, askedAlready: asked, hasHandler: handler) == expected)
    }
}

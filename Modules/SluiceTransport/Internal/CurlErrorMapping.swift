import CCurl
import SluiceCore

/// Maps libcurl's result codes to Sluice's stable error codes.
enum CurlErrorMapping {
    /// What the TLS layer knew when a transfer failed.
    struct Trust {
        /// OpenSSL's verification result (`CURLINFO_SSL_VERIFYRESULT`, an `X509_V_ERR_*`).
        var verifyResult = 0
        /// Whether the trust store held pinned certificates rather than CAs.
        var anchorsArePinned = false
        /// Whether the server asked for a client certificate, the request had none, and no response
        /// arrived: a connection dropped then is the server refusing the missing certificate (a
        /// TLS 1.3 server's alert can be lost to the reset that follows it).
        var clientCertificateMissing = false
    }

    /// The code and a message for a failed transfer.
    ///
    /// - Parameters:
    ///   - code: curl's result.
    ///   - message: curl's error-buffer text.
    ///   - connected: whether the connection had been made (tells a connect timeout from the others).
    ///   - elapsed: seconds the attempt ran.
    ///   - resourceTimeout: the whole-transfer limit, if any.
    ///   - trust: the verification result and the kind of trust store.
    static func code(
        for code: CURLcode, message: String, connected: Bool, elapsed: Double, resourceTimeout: Double?,
        trust: Trust = Trust()
    ) -> (code: SluiceError.Code, message: String) {
        if let refusal = clientCertificateRefusal(code, message) { return refusal }
        if trust.clientCertificateMissing, [CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING].contains(code) {
            return (.clientCertificateRejected, "the server asked for a client certificate, none was given, and it closed the connection")
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return (.cannotResolveHost, "cannot resolve the host name")
        case CURLE_COULDNT_CONNECT:
            return (.cannotConnect, "cannot connect to the host")
        case CURLE_PROXY:
            return (.proxyRefused, "the proxy refused the connection or its credentials")
        case CURLE_RECV_ERROR where message.hasPrefix("CONNECT tunnel failed"),
            CURLE_COULDNT_CONNECT where message.hasPrefix("CONNECT tunnel failed"):
            return (.proxyRefused, "the proxy refused the tunnel (\(message))")
        case CURLE_INTERFACE_FAILED:
            return (.cannotConnect, "cannot connect from the local interface or address asked for")
        case CURLE_OPERATION_TIMEDOUT:
            // The task's time ran out, whatever phase the attempt was in (a late redirect hop gets only
            // what is left of it, and may still be connecting).
            if let resourceTimeout, elapsed >= resourceTimeout * 0.98 {
                return (.resourceTimedOut, "the transfer took longer than \(resourceTimeout) s")
            }
            // libcurl's low-speed check (the session's minimum transfer rate) says so in its message.
            if message.hasPrefix("Operation too slow") {
                return (.transferTooSlow, "the transfer was slower than the minimum rate for its whole window")
            }
            if !connected { return (.connectTimedOut, "the connection was not made in time") }
            return (.idleTimedOut, "no bytes moved for longer than the idle timeout")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return (.pinnedKeyMismatch, "the server's public key matches no pinned key")
        case CURLE_PEER_FAILED_VERIFICATION:
            return peerVerificationFailure(message, trust)
        case CURLE_SSL_CERTPROBLEM:
            return (.invalidClientIdentity, "the client certificate or key could not be used")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED:
            return (.tlsFailed, "the TLS handshake failed")
        case CURLE_TOO_MANY_REDIRECTS:
            return (.tooManyRedirects, "too many redirects")
        case CURLE_UNSUPPORTED_PROTOCOL where message.contains("HTTP/0.9"):
            // libcurl reads an answer that does not start with a status line as HTTP/0.9, which it refuses.
            return (.invalidResponse, "the server's answer does not start with an HTTP status line")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_WEIRD_SERVER_REPLY:
            return (.connectionLost, "the connection ended before the response was complete")
        case CURLE_ABORTED_BY_CALLBACK:
            return (.cancelled, "the task was cancelled")
        case CURLE_READ_ERROR:
            return (.bodyStreamFailed, "the request body could not be read")
        case CURLE_RANGE_ERROR, CURLE_BAD_DOWNLOAD_RESUME:
            return (.downloadFailed, "the server refused to resume the download")
        default:
            return (.transportFailed, "the transfer failed")
        }
    }

    /// The server's chain or name failed verification (`CURLE_PEER_FAILED_VERIFICATION`): OpenSSL's
    /// reason, or libcurl's own host-name check (whose verify result stays unspecific).
    private static func peerVerificationFailure(_ message: String, _ trust: Trust) -> (code: SluiceError.Code, message: String) {
        // libcurl checks the name itself after OpenSSL accepted the chain ("... target host name ...").
        if message.contains("target host name") {
            return (.hostMismatch, "the server's certificate is not for this host")
        }
        switch Int32(trust.verifyResult) {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return (.hostMismatch, "the server's certificate is not for this host")
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return (.certificateExpired, "a certificate of the server's chain has expired")
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return (.certificateNotYetValid, "a certificate of the server's chain is not valid yet")
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            return trust.anchorsArePinned
                ? (.pinnedCertificateMissing, "the server's chain contains none of the pinned certificates")
                : (.untrustedChain, "the server's certificate chain is not trusted")
        default:
            return (.untrustedChain, "the server's certificate chain is not trusted")
        }
    }

    /// A TLS alert from the server about the client's certificate (TLS 1.3 sends `certificate required`
    /// after the client's part of the handshake, so it may arrive as a receive error).
    private static func clientCertificateRefusal(_ code: CURLcode, _ message: String) -> (code: SluiceError.Code, message: String)? {
        guard [CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR].contains(code) else { return nil }
        let alerts = [
            "alert certificate required", "alert bad certificate", "alert unknown ca", "alert certificate unknown",
            "alert certificate expired", "alert certificate revoked", "alert unsupported certificate",
        ]
        guard alerts.contains(where: message.contains) else { return nil }
        return (.clientCertificateRejected, "the server refused the client certificate, or required one")
    }
}

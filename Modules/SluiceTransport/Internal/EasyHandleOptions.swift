import CCurl
import Foundation
import SluiceCore

/// Sets an attempt's options on a reset easy handle (engine thread): the only code that calls
/// `curl_easy_setopt`. The handle was reset, so TCP_NODELAY on, FOLLOWLOCATION off, GET, and peer and
/// host verification on are libcurl's defaults already; only what differs is set.
enum EasyHandleOptions {
    static func apply(_ setup: EasyHandleSetup, to easy: UnsafeMutableRawPointer) {
        let context = setup.context
        sluice_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        sluice_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, setup.errorBuffer)
        // `withCString` lends a native string's own bytes; passing the `String` itself would copy it
        // into a new array for the call.
        setup.url.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_URL, $0) }
        sluice_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        sluice_easy_setopt_share(easy, setup.share)
        if setup.waitsForMultiplexing { sluice_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1) }
        // curl follows no redirects itself, so only a URL with another scheme needs the restriction.
        if setup.restrictsProtocols { sluice_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https") }
        sluice_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, setup.httpVersion)

        sluice_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, setup.connectTimeoutMilliseconds)
        if let total = setup.totalTimeoutMilliseconds { sluice_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, total) }
        if let rate = setup.minimumTransferRate {
            sluice_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, rate.bytesPerSecond)
            sluice_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, rate.wholeSeconds)
        }

        sluice_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback)
        sluice_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        sluice_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback)
        sluice_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)

        applyMethod(setup.method, context: context, to: easy)
        if let headerList = setup.headerList { sluice_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList) }
        applyTLS(setup.tls, checksBeforeSending: setup.checksConnectionBeforeSending, context: context, to: easy)

        if let credential = setup.credential {
            var schemes = 0
            if credential.schemes.contains(.basic) { schemes |= Int(SLUICE_CURLAUTH_BASIC) }
            if credential.schemes.contains(.digest) { schemes |= Int(SLUICE_CURLAUTH_DIGEST) }
            sluice_easy_setopt_long(easy, CURLOPT_HTTPAUTH, schemes)
            credential.user.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_USERNAME, $0) }
            credential.password.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_PASSWORD, $0) }
        }
        applyProxy(setup.proxy, to: easy)
        if setup.startsCookieEngine { sluice_easy_setopt_string(easy, CURLOPT_COOKIEFILE, "") }
        if setup.usesLargeReceiveBuffer { sluice_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 512 * 1024) }
        if setup.usesOwnConnection {
            sluice_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)
            sluice_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1)
        }
        applyConnection(setup, to: easy)
    }

    /// The proxy, or none: an empty `CURLOPT_PROXY` keeps curl from reading the environment itself.
    private static func applyProxy(_ route: ProxyRoute, to easy: UnsafeMutableRawPointer) {
        guard case .proxy(let proxy) = route else {
            sluice_easy_setopt_string(easy, CURLOPT_PROXY, "")
            return
        }
        proxy.url.absoluteString.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_PROXY, $0) }
        if let user = proxy.user {
            user.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_PROXYUSERNAME, $0) }
            (proxy.password ?? "").withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_PROXYPASSWORD, $0) }
        }
        if let trusted = proxy.trustedCertificatesPEM {
            trusted.withUnsafeBytes { bytes in
                _ = sluice_easy_setopt_blob(easy, CURLOPT_PROXY_CAINFO_BLOB, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
            }
            sluice_easy_setopt_string(easy, CURLOPT_PROXY_CAPATH, nil)
        }
    }

    /// Where the connection goes and how: a Unix socket, overrides, the interface, the address family.
    private static func applyConnection(_ setup: EasyHandleSetup, to easy: UnsafeMutableRawPointer) {
        if let path = setup.unixSocketPath { path.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_UNIX_SOCKET_PATH, $0) } }
        if let connectTo = setup.connectTo { sluice_easy_setopt_slist(easy, CURLOPT_CONNECT_TO, connectTo) }
        if let interface = setup.localInterface { interface.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_INTERFACE, $0) } }
        if let resolve = setup.ipResolve { sluice_easy_setopt_long(easy, CURLOPT_IPRESOLVE, resolve) }
        if let timeout = setup.expectContinueTimeoutMilliseconds {
            sluice_easy_setopt_long(easy, CURLOPT_EXPECT_100_TIMEOUT_MS, timeout)
        }
    }

    private static func applyMethod(
        _ method: EasyHandleSetup.Method, context: UnsafeMutableRawPointer, to easy: UnsafeMutableRawPointer
    ) {
        switch method {
        case .get:
            return
        case .head:
            sluice_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case .bodiless(let name):
            name.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
        case .upload(let custom, let length):
            if let custom { custom.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) } }
            sluice_easy_setopt_long(easy, CURLOPT_POST, 1)
            sluice_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length ?? -1))
            sluice_easy_setopt_data_callback(easy, CURLOPT_READFUNCTION, transferReadCallback)
            sluice_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
            sluice_easy_setopt_seek_callback(easy, transferSeekCallback)
            sluice_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context)
        }
    }

    private static func applyTLS(
        _ tls: CurlTLSOptions, checksBeforeSending: Bool, context: UnsafeMutableRawPointer, to easy: UnsafeMutableRawPointer
    ) {
        if !tls.verifiesPeer { sluice_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0) }
        if !tls.verifiesHost { sluice_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0) }
        if let trustStore = tls.caBundle {
            trustStore.withUnsafeBytes { bytes in
                _ = sluice_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
            }
        }
        // libcurl keeps consulting its default CA directory next to a CA blob: a replaced store must
        // not let the system's CAs back in.
        if tls.replacesSystemStore { sluice_easy_setopt_string(easy, CURLOPT_CAPATH, nil) }
        if checksBeforeSending {
            sluice_easy_setopt_prereq_callback(easy, transferPrerequestCallback)
            sluice_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
        }
        if !tls.allowsPartialChain {
            sluice_easy_setopt_long(easy, CURLOPT_SSL_OPTIONS, Int(CURLSSLOPT_NO_PARTIALCHAIN))
        }
        if let pins = tls.pinnedPublicKeys {
            pins.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, $0) }
        }
        if let identity = tls.clientIdentity {
            sluice_easy_setopt_string(easy, CURLOPT_SSLCERTTYPE, "PEM")
            identity.certificatePEM.withUnsafeBytes { bytes in
                _ = sluice_easy_setopt_blob(easy, CURLOPT_SSLCERT_BLOB, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
            }
            identity.privateKeyPEM.withUnsafeBytes { bytes in
                _ = sluice_easy_setopt_blob(easy, CURLOPT_SSLKEY_BLOB, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
            }
            if let passphrase = identity.passphrase { passphrase.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_KEYPASSWD, $0) } }
        }
        sluice_easy_setopt_long(easy, CURLOPT_SSLVERSION, tls.versions)
        if let ciphers = tls.cipherList { ciphers.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_SSL_CIPHER_LIST, $0) } }
        if let suites = tls.tls13CipherSuites { suites.withCString { _ = sluice_easy_setopt_string(easy, CURLOPT_TLS13_CIPHERS, $0) } }
    }
}

import CCurl
import SluiceCore

/// Everything one attempt sets on its easy handle, decided by the transfer before any curl call: the
/// input of ``EasyHandleOptions``, which is the only code that sets options on a handle.
struct EasyHandleSetup {
    /// How the request line and body go out.
    enum Method: Equatable {
        /// `GET` with no body: libcurl's default after a reset.
        case get
        /// `HEAD`: no body is read.
        case head
        /// A method sent with no body (`DELETE`, `OPTIONS`, …).
        case bodiless(String)
        /// A body pulled through the read callback, `length` bytes (`nil`: chunked); `custom` is the
        /// method when it is not `POST`.
        case upload(custom: String?, length: Int64?)
    }

    /// The transfer, as the callbacks' data pointer and `CURLOPT_PRIVATE`.
    var context: UnsafeMutableRawPointer
    /// Where curl writes its error detail.
    var errorBuffer: UnsafeMutablePointer<CChar>
    /// The URL as curl gets it.
    var url: String
    /// DNS, TLS sessions and (for transfers that handle cookies) the cookie store.
    var share: UnsafeMutableRawPointer
    /// The URL's scheme is neither `http` nor `https`: curl must refuse it.
    var restrictsProtocols: Bool
    /// `CURLOPT_HTTP_VERSION`.
    var httpVersion: Int
    /// Wait for a connection that may multiplex (HTTP/2 possible).
    var waitsForMultiplexing: Bool
    var connectTimeoutMilliseconds: Int
    /// What is left of the task's resource timeout, `nil` for none.
    var totalTimeoutMilliseconds: Int?
    var minimumTransferRate: MinimumTransferRate?
    var method: Method
    /// The request's header lines as curl's list (owned by the transfer).
    var headerList: UnsafeMutablePointer<curl_slist>?
    var tls: CurlTLSOptions
    /// Call the pre-request callback (trust evaluation, client-certificate requests) before sending.
    var checksConnectionBeforeSending: Bool
    /// Credentials for the server's challenge, given to this origin only.
    var credential: Credential?
    /// Directly (curl told not to read the environment itself), or through a proxy.
    var proxy: ProxyRoute
    /// Turn the handle's cookie engine on (`CURLOPT_COOKIEFILE`).
    var startsCookieEngine: Bool
    /// A 512 KiB receive buffer, for downloads and streams.
    var usesLargeReceiveBuffer: Bool
    /// A new connection for this request, closed after it (`CURLOPT_FRESH_CONNECT`, `CURLOPT_FORBID_REUSE`).
    var usesOwnConnection = false
    /// `CURLOPT_UNIX_SOCKET_PATH`.
    var unixSocketPath: String? = nil
    /// `CURLOPT_CONNECT_TO` (owned by the transfer).
    var connectTo: UnsafeMutablePointer<curl_slist>? = nil
    /// `CURLOPT_INTERFACE`.
    var localInterface: String? = nil
    /// `CURLOPT_IPRESOLVE`, `nil` for curl's default (whatever).
    var ipResolve: Int? = nil
    /// `CURLOPT_EXPECT_100_TIMEOUT_MS`, `nil` for curl's default.
    var expectContinueTimeoutMilliseconds: Int? = nil
}

import CCurl
import Foundation
import SluiceCore
import Synchronization

/// One hop of a call on the engine: its easy handle's configuration, the curl callbacks, response
/// parsing, content decoding and the outcome. Redirects and authentication rounds are the pipeline's
/// follow-ups, above: each hop is a transfer of its own.
///
/// Everything but the `let`s is touched on the engine thread only; the engine retains a transfer
/// while curl may call back into it.
final class Transfer: @unchecked Sendable {
    /// How a finished attempt continues.
    enum Step {
        /// Send the same request once more, on a new connection (the reused one died first).
        case sendAgain
        /// The hop is done.
        case complete(Ending)
    }

    /// How a hop ended: with an error, or successfully — its request, response head, metrics and any
    /// body kept aside are then ``request``, ``responseHead``, ``metrics`` and ``heldAsideBody``, which
    /// the engine no longer changes.
    typealias Ending = Result<Void, SluiceError>

    /// Hears what the hop learns for the task it belongs to (its head, its progress): the transfer
    /// reports, and knows nothing else of the task. Held strongly: a running task is kept by its transfer.
    let observer: any HopObserver
    /// What the call's follow-ups and its clock say about this hop.
    let hop: HopSettings
    /// Set when the task is cancelled, so a transfer the engine has not attached yet ends at once
    /// instead of starting.
    let cancelRequested = Atomic<Bool>(false)
    private let sharedConfiguration: SharedConfiguration
    /// The session's configuration, read in place.
    var configuration: SessionConfiguration { _read { yield sharedConfiguration.value } }
    let sink: any ResponseSink
    /// Runs when the task ends (see ``end(_:)``); `nil` for a transfer a caller of the async API
    /// awaits (see ``wait(_:)``).
    let completion: (@Sendable (Transfer, Ending) -> Void)?
    /// A suspended caller of the async API, resumed with the result when the transfer ends.
    typealias Awaiter = UnsafeContinuation<Ending, Never>

    /// The awaiting caller, set by ``wait(_:)`` before it publishes ``handoff``.
    private var awaiter: Awaiter?
    /// A result that ended an awaited transfer before its caller waited, set before ``handoff`` says so.
    private var earlyResult: EarlyResult?
    /// Where an awaited transfer's end stands: ``Handoff``'s values.
    private let handoff = Atomic<UInt8>(Handoff.none)
    /// Whether ``end(_:)`` has taken the awaited transfer's one result. Taking it releases everything the
    /// ending thread wrote to the transfer, and ``ended()`` acquires it: the caller reads the final request,
    /// head and metrics by this ordering of its own, not only by the continuation's (which ThreadSanitizer
    /// cannot see when the result arrives before the caller has finished suspending).
    private let endClaimed = Atomic<Bool>(false)

    private enum Handoff {
        static let none: UInt8 = 0
        /// The caller waits in ``awaiter``.
        static let awaiting: UInt8 = 1
        /// The result waits in ``earlyResult``.
        static let ended: UInt8 = 2
    }

    /// The rare result that arrives before its awaiter, boxed so it takes no room in every transfer.
    private final class EarlyResult {
        let result: Ending
        init(_ result: Ending) { self.result = result }
    }

    // Engine thread only (until the transfer ended, for `request`).
    private(set) var request: HTTPRequest
    /// The easy handle of the running attempt, from ``configure(_:share:engine:startingCookieEngine:)``
    /// until ``detachHandle()``.
    private(set) var easy: UnsafeMutableRawPointer?
    /// Why the handle is paused; the engine carries out what its events return.
    private(set) var pause = TransferPause()
    /// The engine running this transfer (set at configure; the engine outlives its transfers' callbacks).
    private unowned(unsafe) var engine: CurlEngine?
    /// curl's list of the request's header lines. Made with the transfer, on the thread that starts the
    /// task, like the transfer's other buffers: the thread that drops the transfer frees them, and memory
    /// the engine thread allocated would make that thread take the engine's allocator lock.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// curl's list of the connection overrides (`CURLOPT_CONNECT_TO`), made once for the request.
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    /// Whether ``headerList`` begins with `Content-Type:`, which keeps curl from adding its own.
    private var headerListRemovesContentType = false
    /// The `Expect` line ``headerList`` holds.
    private var headerListExpect: String?
    /// The server answered `417 Expectation Failed` to this hop's `Expect: 100-continue`: the request
    /// goes out again without it (once).
    private var expectationRefused = false
    /// This attempt's answer was that 417, which ends the attempt before its head is reported.
    private var attemptRefusedExpectation = false
    private var bodyStream: (any BodyStream)?
    /// Reads a caller's body stream off the engine thread (``HTTPBody/stream(_:)`` bodies only: Sluice's
    /// own byte and file streams are read here, as they cannot block).
    private var readAhead: BodyReadAhead?
    /// The queue every ``readAhead`` of this transfer reads the caller's stream on, one after another.
    private lazy var bodyReadQueue = hop.bodyReadQueue ?? BodyReadAhead.makeQueue()
    /// The coding the body is encoded with while it is sent (``HTTPRequest/contentEncoding``).
    private var bodyCoding: String?
    private var declaredBodyLength: Int64?
    private var bodyBytesRead: Int64 = 0
    /// An error raised in a callback, which ends the attempt. Kept out of line: a ``SluiceError`` is
    /// large, and a transfer object small enough for the allocator's fast size classes is cheaper.
    private var failure: SluiceError? {
        get { failureStorage.first }
        set { failureStorage = newValue.map { [$0] } ?? [] }
    }
    private var failureStorage: [SluiceError] = []
    /// Whether the server asked for a client certificate and this request had none to give.
    private var clientCertificateRequested = false
    /// Reads the response heads of the current attempt.
    private var headParser: ResponseHeadParser
    /// The current response's head; engine thread only until the transfer ended.
    private(set) var responseHead: ResponseHead?
    /// What the observer has not been told yet: sent at the end of the callback that learned it, so a
    /// small response's head, body start and first counts reach the task together.
    private var unreported = HopReport()
    /// Whether the current response may be followed up (a redirect, a 401 with a challenge handler):
    /// its body is kept aside in ``heldAsideBody`` rather than delivered, until the follow-ups decide.
    private var holdsBodyAside = false
    /// Whether the current response's body was begun (its sink told of the head).
    private var bodyBegun = false
    /// The decoded body of a response kept aside (at most 1 MiB is kept).
    private(set) var heldAsideBody: Data?
    private var decoder: (any ContentDecoder)?
    private var decoderBudgetOutput: Int64 = 0
    /// Engine thread only until the transfer ended.
    private(set) var metrics: TaskMetrics
    /// When the transfer was made: its metrics' start, readable from any thread while the engine runs it.
    let startDate = Date()
    /// When the call started: the resource timeout counts the whole call from here, redirects and
    /// authentication rounds included. For a call's first hop, when its handle was configured.
    private(set) var startedAt: MonotonicInstant?
    /// Watches the bytes this attempt moves (head and body, both ways) for the idle timeout: the
    /// request's own timeout, else the session's; 0 for none.
    private var idleWatch: IdleWatch
    /// Seconds without a byte moving (once connected) after which the task fails; 0 for none.
    var idleTimeout: TimeInterval { idleWatch.timeout }
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// This attempt's request body bytes handed to curl and response bytes received (before decoding).
    private var bytesSent: Int64 = 0
    private var bytesReceived: Int64 = 0
    /// Bytes of the resource the destination held before this attempt's body (a resumed download's
    /// partial file when the server continues it): progress counts from there, as URLSession's does.
    private var bytesAlreadyHeld: Int64 = 0
    /// Whether the request goes out again, within an attempt or as a new one (``finish(code:)``).
    private var attempts = HopAttempts()
    /// The TLS settings of the current attempt (they depend on the request's host).
    private var tls: CurlTLSOptions { prepared.tls }
    /// What the request's attempts need from Swift values, made before the engine sees the transfer (on
    /// the submitting thread).
    private let prepared: Prepared
    /// Whether ``request`` passed `validateForSending()`: checked where the transfer is made (on the thread
    /// that starts the task, not the engine's).
    private var requestValidated = false

    /// A hop for `request`. Without a `completion`, the pipeline's exchange awaits it with ``wait(_:)``.
    init(
        observer: any HopObserver, request: HTTPRequest, hop: HopSettings, configuration: SharedConfiguration,
        sink: any ResponseSink, completion: (@Sendable (Transfer, Ending) -> Void)?
    ) {
        self.observer = observer
        self.hop = hop
        self.startedAt = hop.startedAt
        self.metrics = TaskMetrics(startDate: startDate)
        self.request = request
        self.sharedConfiguration = configuration
        self.sink = sink
        self.completion = completion
        self.idleWatch = IdleWatch(timeout: request.timeout ?? configuration.value.idleTimeout)
        self.prepared = Prepared(request: request, configuration: configuration)
        // The head's buffer is made here, on the thread that starts the task, not by the engine.
        headParser = ResponseHeadParser(maximumInterimResponses: configuration.value.maximumInterimResponses)
        metrics.transactions.reserveCapacity(1)
        headerList = Self.makeHeaderList(prepared.headerLines, removingContentType: false, expect: prepared.expectLine)
        headerListExpect = prepared.expectLine
        for override in prepared.connection.overrides {
            connectToList = override.description.withCString { curl_slist_append(connectToList, $0) }
        }
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // An invalid request is checked again at configure, which throws its error there.
        requestValidated = (try? request.validateForSending()) != nil
    }

    /// Whether the pipeline's exchange awaits this transfer.
    var isAwaited: Bool { completion == nil }

    /// Ends the task with `result`, from whichever thread ended it. An awaited transfer hands its
    /// caller the result, once (later calls do nothing), resuming it if it waits already; the
    /// caller then completes the task on its own thread, so nothing else need be woken for it. Any
    /// other transfer runs ``completion`` here.
    func end(_ result: Ending) {
        if let completion { return completion(self, result) }
        guard !endClaimed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if handoff.load(ordering: .acquiring) == Handoff.awaiting { return awaiter!.resume(returning: result) }
        earlyResult = EarlyResult(result)
        let (published, _) = handoff.compareExchange(
            expected: Handoff.none, desired: Handoff.ended, ordering: .acquiringAndReleasing)
        // The caller began to wait meanwhile.
        if !published { awaiter!.resume(returning: result) }
    }

    /// Called by the awaiting caller once resumed, before it reads what the engine left in the transfer.
    func ended() { _ = endClaimed.load(ordering: .acquiring) }

    /// Suspends the awaiting caller until ``end(_:)``, or resumes it at once when the transfer ended
    /// already (cancelled, or the session invalidated, before it started). Called once, before the
    /// task is resumed.
    func wait(_ awaiter: Awaiter) {
        self.awaiter = awaiter
        let (published, _) = handoff.compareExchange(
            expected: Handoff.none, desired: Handoff.awaiting, ordering: .acquiringAndReleasing)
        if !published { awaiter.resume(returning: earlyResult!.result) }
    }

    /// What the call's follow-ups and its clock say about one hop.
    struct HopSettings {
        /// When the call started: its resource timeout counts from here; `nil` for its first hop, which
        /// starts the count as it configures its handle.
        let startedAt: MonotonicInstant?
        /// Seconds the whole call may take, `nil` for no limit.
        let resourceTimeout: TimeInterval?
        /// The credential libcurl sends (to the call's original origin only).
        let credential: Credential?
        /// Which responses the follow-ups may act on (their bodies are kept aside).
        let followUpRule: FollowUps.Rule
        /// Whether the request went out before in this call (a redirect that keeps the body, a retry
        /// with a credential): a body stream starts over from its first byte.
        let sendsBodyAgain: Bool
        /// Where the call's body goes: one held in memory is decoded within the tighter limits, one
        /// written to a file or streamed gets the larger receive buffer.
        var destination: HTTPLayerContext.Destination = .memory
        /// The queue the call's body stream is read on, shared by its hops: a hop's rewind and reads
        /// then follow the reads an earlier hop had under way (a 307 answered before the body was
        /// sent). `nil`: the transfer makes one when it needs one.
        var bodyReadQueue: DispatchQueue? = nil
    }

    /// The URL, TLS settings and header lines of one request.
    private struct Prepared {
        let url: URL
        /// The URL as curl gets it.
        let urlString: String
        let overTLS: Bool
        /// Whether the scheme is `http` or `https`, the only protocols a transfer may use.
        let isHTTP: Bool
        /// The TLS settings for the request's host.
        let tls: CurlTLSOptions
        /// Every header line curl gets except a `Content-Type:` that depends on the body stream.
        let headerLines: [String]
        let hasContentType: Bool
        /// The request's connection settings, else the session's.
        let connection: ConnectionSettings
        /// The Unix socket the connection goes to: an `http+unix` URL's host, else the settings'.
        let unixSocketPath: String?
        /// The `Expect` line curl gets: `Expect:` (curl adds none and sends the body at once),
        /// `Expect: 100-continue` (a body at the settings' threshold waits for the server), or `nil`
        /// when the request carries its own `Expect` field or no body.
        let expectLine: String?

        /// Reads the configuration in place (`shared.value`): a copy of it costs a retain and a release
        /// of each of its many fields. The headers are the request's as the pipeline's bridge left them
        /// (default headers, `Accept-Encoding` and `Content-Encoding` added there).
        init(request: HTTPRequest, configuration shared: SharedConfiguration) {
            let url = request.url
            self.url = url
            connection = request.connection ?? shared.value.connection
            // The scheme as the URL's string spells it (Foundation's `scheme` costs half a microsecond).
            let absolute = url.absoluteString
            let scheme = URLHead(absolute).scheme
            if scheme == .httpUnix || scheme == .httpsUnix {
                // http+unix://%2Fpath%2Fto.sock/rest: the socket is the host; curl gets http://localhost/rest.
                unixSocketPath = url.host(percentEncoded: false)
                overTLS = scheme == .httpsUnix
                urlString = (overTLS ? "https" : "http") + "://localhost" + Self.pathAndQuery(of: url)
                isHTTP = true
            } else {
                unixSocketPath = connection.unixSocketPath
                urlString = absolute
                overTLS = scheme == .https
                isHTTP = scheme == .http || overTLS
            }
            tls = shared.tls(for: url)
            var headers = request.headers
            // curl computes these from the body it sends (the bridge removed them; a layer below it may not have).
            if headers.contains("Content-Length") { headers.remove("Content-Length") }
            if headers.contains("Transfer-Encoding") { headers.remove("Transfer-Encoding") }
            var lines: [String] = []
            lines.reserveCapacity(headers.count)
            // No 100-continue round trip unless the settings ask for one for a body of this size (curl
            // would add one itself to bodies over 1 MiB); a request's own Expect field is sent as it is.
            if request.body.isPresent, !headers.contains("Expect") {
                let waits = connection.expectContinueThreshold.map { threshold in
                    // A body of unknown length (or whose file cannot be read now, which fails later) waits.
                    let length = (try? request.body.contentLength()) ?? nil
                    return length.map { $0 >= threshold } ?? true
                } ?? false
                expectLine = waits ? Self.expectContinue : "Expect:"
            } else {
                expectLine = nil
            }
            for header in headers {
                // An empty value needs curl's "Name;" form, or curl would drop the header.
                lines.append(header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
            }
            headerLines = lines
            hasContentType = headers.contains("Content-Type")
        }

        /// The line that asks the server for `100 Continue`.
        static let expectContinue = "Expect: 100-continue"

        /// What follows the authority in `url`'s text: the path, query and fragment as written.
        private static func pathAndQuery(of url: URL) -> String {
            let text = url.absoluteString.utf8
            guard let schemeEnd = text.firstIndex(of: UInt8(ascii: ":")) else { return "/" }
            var index = text.index(schemeEnd, offsetBy: 3, limitedBy: text.endIndex) ?? text.endIndex
            while index < text.endIndex, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(text[index]) {
                index = text.index(after: index)
            }
            let rest = String(url.absoluteString[index...])
            return rest.hasPrefix("/") ? rest : "/" + rest
        }
    }

    deinit {
        readAhead?.close()
        if let headerList { curl_slist_free_all(headerList) }
        if let connectToList { curl_slist_free_all(connectToList) }
        errorBuffer.deallocate()
    }

    // MARK: Configuring the easy handle

    /// Whether this request sends and stores cookies.
    /// (libcurl's engine: a session with a ``CookieStorage`` of its own keeps its cookies there instead.)
    var handlesCookies: Bool { sharedConfiguration.cookiesInLibcurl && request.shouldHandleCookies }

    /// Configures a reset easy handle of `engine` for the current request, turning its cookie engine on
    /// when `startingCookieEngine` (it stays on through resets; the share decides the cookie store).
    /// On failure the handle is not kept.
    func configure(
        _ easy: UnsafeMutableRawPointer, share: UnsafeMutableRawPointer, engine: CurlEngine, startingCookieEngine: Bool
    ) throws(SluiceError) {
        // Nothing that could change the request line or add to the head reaches curl, whichever API
        // (or redirect) made the request.
        if !requestValidated {
            try request.validateForSending()
            requestValidated = true
        }
        // Set before the body is configured: a body read ahead off the engine thread wakes the transfer
        // through it.
        self.engine = engine
        self.easy = easy
        pause.attemptStarted()
        do throws(SluiceError) {
            try configureHandle(easy, share: share, startingCookieEngine: startingCookieEngine)
        } catch {
            self.easy = nil
            throw error
        }
    }

    /// Gives the handle back: the attempt on it ended, or never started.
    func detachHandle() { easy = nil }

    /// The caller suspended the task; returns whether the engine should pause the handle.
    func suspend() -> Bool { pause.suspend() }

    /// The caller resumed the task; returns whether the engine should continue the handle.
    func resume() -> Bool { pause.resume() }

    /// The stream's reader or the body's read-ahead can go on; returns whether the engine should
    /// continue the handle.
    func streamCanContinue() -> Bool { pause.streamCanContinue() }

    private func configureHandle(
        _ easy: UnsafeMutableRawPointer, share: UnsafeMutableRawPointer, startingCookieEngine: Bool
    ) throws(SluiceError) {
        let now = MonotonicInstant.now
        if startedAt == nil { startedAt = now }
        headParser.reset()
        attemptRefusedExpectation = false
        responseHead = nil
        holdsBodyAside = false
        bodyBegun = false
        heldAsideBody = nil
        decoder = nil
        failure = nil
        bodyBytesRead = 0
        bytesSent = 0
        bytesReceived = 0
        bytesAlreadyHeld = 0
        // The same request sent again after a dead connection may not be repeated once more.
        attempts.attemptStarted()
        errorBuffer[0] = 0
        idleWatch.restart()
        // Timeouts: connect and whole resource here; idle (no byte for N seconds) is the engine's watch
        // (see ``isIdle(at:)``).
        var totalTimeout: Int?
        if let resource = hop.resourceTimeout {
            // What is left of the call's time: a redirect or an authentication round does not restart it.
            let left = resource - Self.seconds(now - (startedAt ?? now))
            guard left > 0 else {
                throw SluiceError(.resourceTimedOut, "the transfer took longer than \(resource) s", request: request)
            }
            totalTimeout = Self.milliseconds(left)
        }
        if prepared.overTLS, let problem = tls.problem {
            throw SluiceError(.invalidSecurityPolicy, problem, request: request)
        }
        var proxyRoute = ProxyRoute.direct
        do throws(SluiceError) {
            try prepared.connection.validate()
            let choice = request.proxy ?? configuration.proxy
            // The usual case (the environment's choice, and no proxy in it) has nothing to look at.
            let followsEmptyEnvironment = if case .environment = choice { !sharedConfiguration.environmentNamesProxy } else { false }
            if !followsEmptyEnvironment {
                proxyRoute = try ProxyRoute.route(for: request.url, choice: choice, environment: sharedConfiguration.proxyEnvironment)
            }
        } catch {
            throw SluiceError(error.code, error.message, request: request)
        }
        let method = try prepareMethodAndBody()
        prepareHeaderList()
        // Over https the transfer looks at the connection before the request goes out: the trust
        // evaluator decides, and a server asking for a client certificate that this request cannot
        // give is noted, so a connection it then drops reads as a refused client certificate.
        clientCertificateRequested = false
        let httpVersion = configuration.httpVersion
        let usesPriorKnowledge = httpVersion == .http2 && !prepared.overTLS
        let curlVersion = switch httpVersion {
        case .http1_1: SLUICE_CURL_HTTP_VERSION_1_1
        case .http2OverTLS: SLUICE_CURL_HTTP_VERSION_2TLS
        case .http2: SLUICE_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        }
        var setup = EasyHandleSetup(
            context: Unmanaged.passUnretained(self).toOpaque(), errorBuffer: errorBuffer, url: prepared.urlString,
            share: share, restrictsProtocols: !prepared.isHTTP,
            httpVersion: curlVersion,
            // Waiting for a connection that may multiplex only makes sense where HTTP/2 can be had: over
            // TLS (ALPN) or with prior knowledge. Over plain HTTP/1.1 it would queue a request behind a
            // busy connection (a slow upload) whose multiplexing is still unknown.
            waitsForMultiplexing: httpVersion == .http2 || (httpVersion == .http2OverTLS && prepared.overTLS),
            connectTimeoutMilliseconds: Self.milliseconds(configuration.connectTimeout),
            totalTimeoutMilliseconds: totalTimeout, minimumTransferRate: configuration.minimumTransferRate,
            method: method, headerList: headerList, tls: tls,
            // Besides the TLS checks, the callback keeps libcurl from sending a request that may not be
            // repeated again after a reused connection died (StaleConnectionRetry). One that may be is left
            // to libcurl, which sends it again at most once (its second try is on a new connection).
            checksConnectionBeforeSending: (prepared.overTLS && (tls.serverTrustEvaluator != nil || tls.clientIdentity == nil))
                || !request.mayBeRepeated,
            // Credentials go to the original origin only.
            credential: hop.credential,
            proxy: proxyRoute, startsCookieEngine: startingCookieEngine,
            usesLargeReceiveBuffer: hop.destination != .memory,
            usesOwnConnection: usesPriorKnowledge
                && (attempts.resentOnOwnConnection || sharedConfiguration.avoidsReusingPriorKnowledge(to: Self.origin(request.url))))
        let connection = prepared.connection
        setup.unixSocketPath = prepared.unixSocketPath
        setup.connectTo = connectToList
        setup.localInterface = connection.localInterface
        switch connection.addressFamily {
        case .any: break
        case .ipv4: setup.ipResolve = Int(CURL_IPRESOLVE_V4)
        case .ipv6: setup.ipResolve = Int(CURL_IPRESOLVE_V6)
        }
        if connection.expectContinueThreshold != nil {
            setup.expectContinueTimeoutMilliseconds = Self.milliseconds(connection.expectContinueTimeout)
        }
        EasyHandleOptions.apply(setup, to: easy)
    }

    /// The method and, for a request with a body, its stream (read ahead when it is the caller's), its
    /// content coding and its length.
    private func prepareMethodAndBody() throws(SluiceError) -> EasyHandleSetup.Method {
        let method = request.method.rawValue
        bodyStream = nil
        readAhead?.close()
        readAhead = nil
        bodyCoding = nil
        declaredBodyLength = nil
        switch method {
        case "GET" where !request.body.isPresent:
            return .get
        case "HEAD":
            return .head
        default:
            break
        }
        let custom = method == "POST" ? nil : method
        guard request.body.isPresent || ["POST", "PUT", "PATCH"].contains(method) else { return .bodiless(method) }
        var stream: any BodyStream
        /// The caller's stream, to start over before its first read.
        var rewindFirst: (any BodyStream)?
        if case .stream(let existing) = request.body {
            // A stream is sent from its first byte: after a redirect, and also when the same request
            // (and so the same stream) was sent or read before. One that cannot start over is sent
            // from where it is the first time, and fails a redirect that needs it again. The rewind,
            // like every read, is the reader's, off this thread.
            if existing.isRewindable || metrics.transactions.count > 0 || hop.sendsBodyAgain { rewindFirst = existing }
            stream = existing
        } else {
            stream = try request.body.makeStream()
        }
        if let name = request.contentEncoding, request.body.isPresent {
            guard let coding = configuration.registry.contentCoding(named: name), coding.canEncode else {
                throw SluiceError(
                    .contentCodingUnsupported, "the session's registry has no content coding named \(name) that encodes",
                    request: request)
            }
            stream = try EncodingBodyStream(stream, coding: coding)
            bodyCoding = coding.name
        }
        bodyStream = stream
        if case .stream = request.body {
            let engine = self.engine
            readAhead = BodyReadAhead(stream, rewinding: rewindFirst, queue: bodyReadQueue) { [weak self, weak engine] in
                guard let self, let engine else { return }
                engine.submit(.continueStream(self))
            }
        }
        declaredBodyLength = stream.contentLength
        observer.hopReported(HopReport(totalToSend: stream.contentLength ?? -1))
        return .upload(custom: custom, length: stream.contentLength)
    }

    /// Makes curl's list of the request's header lines, unless the one made for an earlier attempt fits.
    private func prepareHeaderList() {
        // A streamed body of unknown length without a Content-Type would get curl's form type.
        let removesContentType = declaredBodyLength == nil && bodyStream != nil && !prepared.hasContentType
        let expect = currentExpectLine
        if headerList == nil || removesContentType != headerListRemovesContentType || expect != headerListExpect {
            if let headerList { curl_slist_free_all(headerList) }
            headerList = Self.makeHeaderList(prepared.headerLines, removingContentType: removesContentType, expect: expect)
            headerListRemovesContentType = removesContentType
            headerListExpect = expect
        }
    }

    /// The `Expect` line of this attempt: the prepared one, but none after the server refused it.
    private var currentExpectLine: String? {
        expectationRefused && prepared.expectLine == Prepared.expectContinue ? "Expect:" : prepared.expectLine
    }

    /// curl's list of `lines`, after a `Content-Type:` line when `removingContentType` and the
    /// `expect` line when there is one.
    private static func makeHeaderList(
        _ lines: [String], removingContentType: Bool, expect: String?
    ) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        if removingContentType { list = curl_slist_append(list, "Content-Type:") }
        if let expect { list = expect.withCString { curl_slist_append(list, $0) } }
        for line in lines { list = line.withCString { curl_slist_append(list, $0) } }
        return list
    }

    private static func milliseconds(_ seconds: TimeInterval) -> Int { max(1, Int((seconds * 1000).rounded(.up))) }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The URL's host as TLS sees it: lowercased, an IPv6 address without brackets.
    static func hostName(_ url: URL) -> String {
        var host = (url.host ?? "").lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    // MARK: Callbacks (engine thread)

    func onHeader(_ line: UnsafeRawBufferPointer) -> Int {
        attempts.answerBegan()
        switch headParser.consume(line) {
        case .proceed, .interim:
            return line.count
        case .head:
            if headParser.statusCode == 417, currentExpectLine == Prepared.expectContinue {
                // curl would send the same request, our Expect line included, again and again.
                attemptRefusedExpectation = true
                return 0
            }
            headEnded()
            return line.count
        case .invalid(let reason):
            failure = SluiceError(.invalidResponse, reason, request: request)
            return 0
        }
    }

    /// A final head arrived: it becomes the task's response head.
    private func headEnded() {
        let head = headParser.takeHead(url: request.url)
        responseHead = head
        // Told with the body's start, or at the end (see ``reportPending()``).
        unreported.head = head
        holdsBodyAside = hop.followUpRule.mayFollow(statusCode: head.statusCode, hasLocation: head.hasLocation)
        // The body is begun at its first byte (or at the end), so the head of a response curl
        // answers itself (an authentication round) never reaches the sink.
    }

    /// Begins the current response's body once.
    private func beginBodyIfNeeded() throws(SluiceError) {
        guard let head = responseHead, !bodyBegun, !holdsBodyAside else { return }
        bodyBegun = true
        try beginBody(head)
    }

    private func beginBody(_ head: ResponseHead) throws(SluiceError) {
        makeDecoder(for: head)
        // A stream's reader is woken by its sink's start and may ask the task for its response at once.
        if hop.destination == .stream { reportPending() }
        try sink.begin(head)
        bytesAlreadyHeld = sink.bytesAlreadyHeld
        unreported.totalExpected = decoder == nil ? (head.expectedContentLength.map { $0 + bytesAlreadyHeld } ?? -1) : -1
    }

    /// Tells the observer what it was not told yet, if anything (engine thread).
    func reportPending() {
        guard !unreported.isEmpty else { return }
        let report = unreported
        unreported = HopReport()
        observer.hopReported(report)
    }

    /// The content decoder for the head's `Content-Encoding`, when the registry has one.
    private func makeDecoder(for head: ResponseHead) {
        guard decoder == nil, let coding = head.contentEncoding,
            !coding.isEmpty, coding != "identity", request.method != .head,
            let contentCoding = configuration.registry.contentCoding(named: coding)
        else { return }
        // A body held whole in memory is bounded; one written to a file or streamed need not be.
        let inMemory = hop.destination == .memory || holdsBodyAside
        decoder = contentCoding.makeDecoder(
            limits: inMemory ? configuration.contentCodingLimits : configuration.streamingContentCodingLimits)
    }

    /// Keeps the decoded bytes of a response that may be followed up (at most 1 MiB of them).
    private func holdAside(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        if heldAsideBody == nil, let head = responseHead {
            heldAsideBody = Data()
            makeDecoder(for: head)
        }
        let keep: (UnsafeRawBufferPointer) throws(SluiceError) -> Void = { [self] output in
            if heldAsideBody!.count < 1 << 20 { heldAsideBody!.append(output.assumingMemoryBound(to: UInt8.self)) }
        }
        if let decoder { try decoder.decode(bytes, output: keep) } else { try keep(bytes) }
    }

    func onWrite(_ bytes: UnsafeRawBufferPointer) -> Int {
        // After a callback failed, nothing more is decoded or delivered: the first error ends the attempt.
        if failure != nil { return 0 }
        if holdsBodyAside {
            do {
                try holdAside(bytes)
            } catch {
                failure = error
                return 0
            }
            bytesReceived += Int64(bytes.count)
            return bytes.count
        }
        if sink.shouldPause() {
            pause.pausedByStream()
            return Int(SLUICE_CURL_WRITEFUNC_PAUSE)
        }
        do {
            try beginBodyIfNeeded()
            try writeDecoded(bytes)
            bytesReceived += Int64(bytes.count)
            reportProgress()
            return bytes.count
        } catch {
            failure = error
            return 0
        }
    }

    func onRead(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let bodyStream else { return 0 }
        do throws(SluiceError) {
            let count: Int
            if let readAhead {
                switch readAhead.take(into: buffer) {
                case .bytes(let taken): count = taken
                case .end: count = 0
                case .failed(let error): throw error
                case .wait(let paced):
                    if paced { pause.pausedByStream() } else { pause.waitingForBody() }
                    return Int(SLUICE_CURL_READFUNC_PAUSE)
                }
            } else {
                count = try bodyStream.read(into: buffer)
            }
            bodyBytesRead += Int64(count)
            if count > 0 {
                bytesSent += Int64(count)
                reportProgress()
            }
            if let declared = declaredBodyLength {
                if count == 0 && bodyBytesRead < declared {
                    throw SluiceError(
                        .bodyLengthMismatch, "the body stream ended after \(bodyBytesRead) of its declared \(declared) bytes",
                        request: request)
                }
                if bodyBytesRead > declared {
                    throw SluiceError(
                        .bodyLengthMismatch, "the body stream ran past its declared \(declared) bytes", request: request)
                }
            }
            return count
        } catch {
            failure = error
            return Int(SLUICE_CURL_READFUNC_ABORT)
        }
    }

    func onSeek(offset: Int64, origin: Int32) -> Int32 {
        guard offset == 0, origin == SEEK_SET, let bodyStream, bodyStream.isRewindable else { return 2 }  // CANTSEEK
        if let readAhead {
            readAhead.rewind()
            bodyBytesRead = 0
            bytesSent = 0
            return 0  // OK: the reader rewinds the stream before its next read
        }
        do {
            try bodyStream.rewind()
            bodyBytesRead = 0
            bytesSent = 0
            return 0  // OK
        } catch {
            failure = error
            return 1  // FAIL
        }
    }

    /// The connection is made (or reused) and the request not sent yet: a request libcurl would send
    /// again after a reused connection died goes out again only when it may be repeated (once), and over
    /// TLS the trust evaluator decides. Returns `CURL_PREREQFUNC_ABORT` to end the transfer before any
    /// request byte goes out.
    func onPrerequest() -> Int32 {
        switch attempts.willSend(mayBeRepeated: request.mayBeRepeated) {
        case .send, .repeatOnce:
            break
        case .refuse(let repeatedAlready):
            failure = SluiceError(
                .connectionLost,
                repeatedAlready
                    ? "the connection closed before the server answered, again after the request was sent a second time"
                    : "the reused connection closed before the server answered; the \(request.method.rawValue) request was not sent again, since the server may have acted on it (it is not idempotent: set isSafeToRepeat to allow one retry)",
                request: request)
            return SLUICE_CURL_PREREQFUNC_ABORT
        }
        guard prepared.overTLS, let easy else { return SLUICE_CURL_PREREQFUNC_OK }
        if tls.clientIdentity == nil { clientCertificateRequested = sluice_tls_client_certificate_requested(easy) == 1 }
        guard let evaluator = tls.serverTrustEvaluator else { return SLUICE_CURL_PREREQFUNC_OK }
        var certificates: [Data] = []
        let state = withUnsafeMutablePointer(to: &certificates) { pointer in
            sluice_tls_peer_certificates(easy, collectCertificate, pointer)
        }
        do throws(SluiceError) {
            guard state >= 0, !certificates.isEmpty else {
                throw SluiceError(.untrustedChain, "the connection has no TLS session whose certificates could be evaluated")
            }
            try BoundedTrustEvaluation.evaluate(
                ServerCertificateChain(certificates: certificates, isVerified: state == 1, host: Self.hostName(request.url)),
                with: evaluator, within: tls.serverTrustEvaluationTimeout)
            return SLUICE_CURL_PREREQFUNC_OK
        } catch {
            failure = error
            return SLUICE_CURL_PREREQFUNC_ABORT
        }
    }

    /// Reports the counts, with whatever else is pending (a head, the body's start), in one report.
    private func reportProgress() {
        unreported.sent = bytesSent
        unreported.received = bytesAlreadyHeld + bytesReceived
        reportPending()
    }

    // MARK: Finishing

    /// The attempt on the current easy handle ended with `code`: decide what follows.
    func finish(code: CURLcode) -> Step {
        // A head or a body start learned in this attempt reaches the task before anyone hears the end.
        defer { reportPending() }
        readAhead?.close()
        let transaction = makeTransaction()
        metrics.transactions.append(transaction)
        let usesPriorKnowledge = configuration.httpVersion == .http2 && !prepared.overTLS
        let facts = HopAttempts.Facts(
            curlSucceeded: code == CURLE_OK, callbackFailed: failure != nil, hasHead: responseHead != nil,
            connectionDied: code != CURLE_OK && Self.isConnectionDeath(code), reusedConnection: transaction.reusedConnection,
            mayBeRepeated: request.mayBeRepeated, expectationRefused: attemptRefusedExpectation,
            priorKnowledgeFramingErrorBeforeSending: code == CURLE_HTTP2 && usesPriorKnowledge
                && easy.map { EasyHandleInfo(easy: $0).requestHeadBytes == 0 } ?? false)
        switch attempts.ended(facts) {
        case .sendAgain(let ownConnection):
            // libcurl 7.88 fails every request on a reused clear-text HTTP/2 connection to some servers
            // (nghttpd; Apache, reported) with a framing error, before sending a byte of it; `curl
            // --http2-prior-knowledge` fails the same way. The session gives later requests to this
            // origin a connection of their own too.
            if ownConnection { sharedConfiguration.priorKnowledgeReuseFailed(to: Self.origin(request.url)) }
            if attemptRefusedExpectation { expectationRefused = true }
            return sendAgain()
        case .fail:
            return .complete(.failure(error(for: code)))
        case .failWithoutResponse:
            return .complete(.failure(SluiceError(.connectionLost, "the server sent no response", request: request)))
        case .complete:
            break
        }
        do throws(SluiceError) {
            if holdsBodyAside {
                // The follow-ups decide what becomes of it; decoded here, whole, like any body.
                if heldAsideBody == nil { heldAsideBody = Data() }
                if let decoder {
                    try decoder.finish { (output) throws(SluiceError) in
                        if heldAsideBody!.count < 1 << 20 { heldAsideBody!.append(output.assumingMemoryBound(to: UInt8.self)) }
                    }
                }
            } else {
                try beginBodyIfNeeded()
                if let decoder {
                    let sink = self.sink
                    try decoder.finish { (output) throws(SluiceError) in try sink.write(output) }
                }
            }
        } catch {
            return .complete(.failure(attach(error)))
        }
        metrics.duration = Date().timeIntervalSince(metrics.startDate)
        return .complete(.success(()))
    }

    /// The same request once more, as a new attempt of this task: what the sink holds is dropped.
    private func sendAgain() -> Step {
        do throws(SluiceError) {
            try sink.reset()
            return .sendAgain
        } catch {
            return .complete(.failure(attach(error)))
        }
    }

    /// `host:port` of `url`, lowercased, with the scheme's default port filled in.
    static func origin(_ url: URL) -> String {
        "\(hostName(url)):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    /// Whether libcurl's `code` says the connection ended under the request (closed, reset, an HTTP/2
    /// stream or connection error) rather than anything about the request itself.
    static func isConnectionDeath(_ code: CURLcode) -> Bool {
        // CURLE_PARTIAL_FILE: libcurl 7.88's code for an HTTP/2 stream whose connection closed under it
        // ("stream was not closed cleanly"); it counts only when no byte of an answer came (the caller checks).
        [CURLE_HTTP2_STREAM, CURLE_HTTP2, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING].contains(code)
    }

    /// Hands body bytes to the sink, through the content decoder when there is one.
    private func writeDecoded(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        if let decoder {
            let sink = self.sink
            try decoder.decode(bytes) { (output) throws(SluiceError) in try sink.write(output) }
        } else {
            try sink.write(bytes)
        }
    }

    /// The error for a transfer that ended early: one raised in a callback, else curl's code mapped.
    func error(for code: CURLcode) -> SluiceError {
        if let failure { return attach(failure) }
        let detail = String(cString: errorBuffer)
        let library = LibraryDiagnostic(
            library: "libcurl", code: Int(code.rawValue),
            message: String(cString: curl_easy_strerror(code)) + (detail.isEmpty ? "" : ": \(detail)"))
        let seconds = startedAt.map { Self.seconds(MonotonicInstant.now - $0) } ?? 0
        let info = easy.map(EasyHandleInfo.init)
        let mapped = CurlErrorMapping.code(
            for: code, message: detail, connected: info?.isConnected ?? false,
            elapsed: seconds, resourceTimeout: hop.resourceTimeout,
            trust: .init(
                verifyResult: info?.verifyResult ?? 0, anchorsArePinned: tls.anchorsArePinned,
                clientCertificateMissing: clientCertificateRequested && responseHead == nil && headParser.statusCode == 0))
        return attach(SluiceError(mapped.code, mapped.message + (detail.isEmpty ? "" : ": \(detail)"), library: library))
    }

    /// Adds the request, the response and the body received so far to an error.
    func attach(_ error: SluiceError) -> SluiceError {
        var error = error
        if error.request == nil { error.request = request }
        if error.response == nil { error.response = responseHead?.makeResponse() }
        if error.body == nil, let body = sink.receivedBody { error.setBody(body) }
        return error
    }

    // MARK: Idle timeout

    /// Whether the transfer has moved no byte for its idle timeout, as of `now` (engine thread). The
    /// count stands still while the connection is being made (the connect timeout covers that), while
    /// the task is suspended, and while it waits for its reader or its paced body stream (not while a body
    /// stream is just slow to produce: a stream that blocks ends in the idle timeout): the clock then
    /// starts over.
    func isIdle(at now: MonotonicInstant) -> Bool {
        guard idleTimeout > 0, let easy else { return false }
        let count = pause.stopsIdleClock ? nil : EasyHandleInfo(easy: easy).bytesMoved
        return idleWatch.isIdle(count: count, at: now)
    }

    /// The error of a transfer that was idle too long.
    func idleError() -> SluiceError {
        attach(SluiceError(.idleTimedOut, "no bytes moved for longer than the idle timeout (\(idleTimeout) s)"))
    }

    // MARK: Metrics

    private func makeTransaction() -> TaskMetrics.Transaction {
        guard let easy else { return .init(url: request.url, statusCode: 0, httpVersion: nil) }
        return EasyHandleInfo(easy: easy).transaction(url: request.url, head: responseHead)
    }
}

// MARK: - C callbacks

/// Calls `body` with the transfer `context` points to, borrowed: no retain and release per callback. The
/// engine holds every transfer attached to one of its handles for as long as curl may call back.
@inline(__always)
private func withTransfer<Result>(_ context: UnsafeMutableRawPointer?, _ body: (Transfer) -> Result) -> Result {
    Unmanaged<Transfer>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
}

let transferHeaderCallback: sluice_curl_data_callback = { buffer, size, count, context in
    withTransfer(context) { $0.onHeader(UnsafeRawBufferPointer(start: buffer, count: size * count)) }
}

let transferWriteCallback: sluice_curl_data_callback = { buffer, size, count, context in
    withTransfer(context) { $0.onWrite(UnsafeRawBufferPointer(start: buffer, count: size * count)) }
}

let transferReadCallback: sluice_curl_data_callback = { buffer, size, count, context in
    withTransfer(context) { $0.onRead(UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) }
}

let transferSeekCallback: sluice_curl_seek_callback = { context, offset, origin in
    withTransfer(context) { $0.onSeek(offset: Int64(offset), origin: origin) }
}

let transferPrerequestCallback: sluice_curl_prereq_callback = { context, _, _, _, _ in
    withTransfer(context) { $0.onPrerequest() }
}

/// Appends one DER certificate to the `[Data]` that `context` points to.
private let collectCertificate: sluice_certificate_callback = { der, length, context in
    guard let der, let context, length > 0 else { return }
    context.assumingMemoryBound(to: [Data].self).pointee.append(Data(bytes: der, count: Int(length)))
}

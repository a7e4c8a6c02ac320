import CCurl
import Foundation
import SluiceCore

/// libcurl's process-wide initialization, done once before the first curl call, and the engines
/// whose threads still run.
enum CurlGlobal {
    private static let initialization: CURLcode = {
        let code = curl_global_init(SLUICE_CURL_GLOBAL_ALL)
        // Registered after libcurl has initialized OpenSSL, so it runs before OpenSSL's own exit-time
        // cleanup (atexit handlers run last-registered first): an engine still closing its connections
        // when the process exits must not find OpenSSL's state already freed.
        atexit { CurlGlobal.stopEnginesAtExit() }
        return code
    }()

    /// The engines whose threads have not finished, by identity.
    private static let running = Locked<[ObjectIdentifier: CurlEngine]>([:])

    /// Initializes libcurl if that has not happened yet; returns whether it succeeded.
    @discardableResult
    static func ensureInitialized() -> Bool { initialization == CURLE_OK }

    /// Notes an engine whose thread is about to start.
    static func engineStarted(_ engine: CurlEngine) {
        running.withLock { $0[ObjectIdentifier(engine)] = engine }
    }

    /// Notes an engine whose thread has released every curl handle and is ending.
    static func engineFinished(_ engine: CurlEngine) {
        _ = running.withLock { $0.removeValue(forKey: ObjectIdentifier(engine)) }
    }

    /// At process exit: asks every running engine to stop, cancelling its transfers, and waits (at most
    /// two seconds) until their threads have released their handles.
    private static func stopEnginesAtExit() {
        let engines = running.withLock { Array($0.values) }.filter { !$0.isCurrentThread }
        guard !engines.isEmpty else { return }
        for engine in engines { engine.submit(.stop(cancelling: true)) }
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline,
            running.withLock({ state in engines.contains { state[ObjectIdentifier($0)] != nil } })
        {
            usleep(1_000)
        }
    }
}

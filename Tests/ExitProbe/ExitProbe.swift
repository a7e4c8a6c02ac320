import Foundation
import SluiceCore
import SluiceTransport

/// `sluice-exit-probe URL CA_FILE COUNT release|live`: sends COUNT GETs at once over HTTPS, trusting
/// CA_FILE, and exits as soon as they are answered: after releasing the session (its engine may still be
/// closing its connections) or with the session alive. For SluiceTransportTests: the process must exit
/// cleanly (status 0), never crash in OpenSSL's exit-time cleanup.
@main
struct ExitProbe {
    static func main() async {
        // What the run held (the CA bundle, the arguments) is released before exit, so that
        // LeakSanitizer's exit-time check finds nothing held only by main's frame.
        exit(await run())
    }

    /// Parses the arguments and sends the requests; the exit status.
    static func run() async -> Int32 {
        let arguments = CommandLine.arguments
        guard arguments.count == 5, let url = URL(string: arguments[1]), let count = Int(arguments[3]),
            let ca = FileManager.default.contents(atPath: arguments[2]), ["release", "live"].contains(arguments[4])
        else {
            FileHandle.standardError.write(Data("usage: sluice-exit-probe URL CA_FILE COUNT release|live\n".utf8))
            return 2
        }
        let answered = await send(count, to: url, trusting: ca, keepingSession: arguments[4] == "live")
        print("answered \(answered) of \(count)")
        return answered == count ? 0 : 1
    }

    /// Sends the requests; the session is released on return unless `keepingSession`.
    static func send(_ count: Int, to url: URL, trusting ca: Data, keepingSession: Bool) async -> Int {
        var configuration = SessionConfiguration()
        configuration.maximumConnectionsPerHost = count
        configuration.tls.trustedCertificatesPEM = ca
        // HTTP/1.1, so every request has a TLS connection of its own to close.
        configuration.httpVersion = .http1_1
        let session = SessionManager(configuration: configuration)
        let answered = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask { (try? await session.data(for: HTTPRequest(url: url)))?.response.statusCode == 200 }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        if keepingSession { kept.withLock { $0 = session } }
        return answered
    }

    /// A session kept alive until the process exits.
    static let kept = Locked<SessionManager?>(nil)
}

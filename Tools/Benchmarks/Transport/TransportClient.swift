import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOSSL
import SluiceCore
import SluiceMetrics
import SluiceTracing
import SluiceTransport

/// One benchmark client run: `transport-client CLIENT SCENARIO ARGUMENTS...`, printing one JSON line
/// `{"operations": N, "bytes": B, "seconds": S}` (or `{"unsupported": "why"}`).
///
/// - `get URL REQUESTS CONCURRENCY [CA_FILE]`: small GETs, CONCURRENCY at a time. Client
///   `sluice-executor` runs the workers on the session's engine thread (`SessionManager.taskExecutor`);
///   client `minimal` runs the same engine design with none of Sluice's work (MinimalCurlEngine);
///   client `sluice-instrumented` is `sluice` with SluiceTracing's and SluiceMetrics' layers in its
///   pipeline and no tracer or metrics backend bootstrapped (what they cost when nobody listens).
/// - `download URL PATH [CA_FILE]`: one GET into the file PATH.
/// - `upload URL PATH [CA_FILE]`: one PUT of PATH's bytes.
@main
struct TransportClient {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 4 else {
            FileHandle.standardError.write(Data("usage: transport-client sluice|urlsession|ahc get|download|upload URL ...\n".utf8))
            exit(2)
        }
        let client = arguments[0], scenario = arguments[1], url = URL(string: arguments[2])!
        do {
            let started = ContinuousClock.now
            let (operations, bytes): (Int, Int64)
            switch (client, scenario) {
            case (_, "get"):
                let total = Int(arguments[3])!, concurrency = Int(arguments[4])!
                let ca = arguments.count > 5 ? arguments[5] : nil
                (operations, bytes) = try await gets(client: client, url: url, total: total, concurrency: concurrency, ca: ca)
            case ("sluice", "download"):
                let session = try sluiceSession(ca: arguments.count > 4 ? arguments[4] : nil, concurrency: 1)
                let target = URL(fileURLWithPath: arguments[3])
                let result = try await session.download(for: HTTPRequest(url: url)) { _, _ in target }
                (operations, bytes) = (1, result.metrics.transactions.last?.bytesReceived ?? 0)
            case ("sluice", "upload"):
                let session = try sluiceSession(ca: arguments.count > 4 ? arguments[4] : nil, concurrency: 1)
                let result = try await session.upload(for: HTTPRequest(url: url, method: .put), from: .file(path: arguments[3]))
                (operations, bytes) = (1, result.metrics.transactions.last?.bytesSent ?? 0)
            case ("urlsession", "download"):
                let (temporary, _) = try await URLSession.shared.download(for: URLRequest(url: url))
                try? FileManager.default.removeItem(atPath: arguments[3])
                try FileManager.default.moveItem(at: temporary, to: URL(fileURLWithPath: arguments[3]))
                let size = try FileManager.default.attributesOfItem(atPath: arguments[3])[.size] as? Int ?? 0
                (operations, bytes) = (1, Int64(size))
            case ("urlsession", "upload"):
                var request = URLRequest(url: url)
                request.httpMethod = "PUT"
                _ = try await URLSession.shared.upload(for: request, fromFile: URL(fileURLWithPath: arguments[3]))
                let size = try FileManager.default.attributesOfItem(atPath: arguments[3])[.size] as? Int ?? 0
                (operations, bytes) = (1, Int64(size))
            default:
                print(#"{"unsupported": "\#(client) has no \#(scenario) client here"}"#)
                return
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(#"{"operations": \#(operations), "bytes": \#(bytes), "seconds": \#(seconds)}"#)
            FileHandle.standardError.write(Data(threadTimesAtEnd.withLock { $0 }.utf8))
        } catch {
            FileHandle.standardError.write(Data("\(client) \(scenario) failed: \(error)\n".utf8))
            exit(1)
        }
    }

    static let threadTimesAtEnd = Locked("")

    /// CPU seconds per thread name, from /proc (for telling the engine thread's share from the rest).
    static func threadTimes() -> String {
        var byName: [String: Double] = [:]
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"), let open = stat.firstIndex(of: "(")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            let seconds = (Double(fields[11]) ?? 0) / ticks + (Double(fields[12]) ?? 0) / ticks
            byName[name, default: 0] += seconds
        }
        return "threads: " + byName.sorted { $0.value > $1.value }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + "\n"
    }

    /// A layer that only passes each request on: what any three layers cost, for telling that from what
    /// the tracing and metrics layers add.
    struct PassThrough: HTTPLayer {
        func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
            try await next(request, context: context)
        }
    }

    static func sluiceSession(
        ca: String?, concurrency: Int, instrumented: Bool = false, passingThrough: Bool = false
    ) throws -> SessionManager {
        var configuration = SessionConfiguration()
        if instrumented {
            configuration.layers = [HTTPTracingLayer.task(), HTTPMetricsLayer()]
            configuration.networkLayers = [HTTPTracingLayer.hop()]
        }
        if passingThrough {
            configuration.layers = [PassThrough(), PassThrough()]
            configuration.networkLayers = [PassThrough()]
        }
        configuration.maximumConnectionsPerHost = max(concurrency, 1)
        if let ca { configuration.tls.trustedCertificatesPEM = try Data(contentsOf: URL(fileURLWithPath: ca)) }
        return SessionManager(configuration: configuration)
    }

    /// `total` GETs, `concurrency` workers each sending one after another.
    static func gets(client: String, url: URL, total: Int, concurrency: Int, ca: String?) async throws -> (Int, Int64) {
        let perWorker = total / concurrency
        let fetch: @Sendable () async throws -> Int
        var shutdown: (@Sendable () async throws -> Void)?
        var executor: (any TaskExecutor)?
        switch client {
        case "sluice", "sluice-executor", "sluice-instrumented", "sluice-passthrough":
            let session = try sluiceSession(
                ca: ca, concurrency: concurrency, instrumented: client == "sluice-instrumented",
                passingThrough: client == "sluice-passthrough")
            let request = HTTPRequest(url: url)
            fetch = { try await session.data(for: request).data.count }
            // The workers' code runs on the session's engine thread (SessionManager.taskExecutor).
            if client == "sluice-executor" { executor = session.taskExecutor }
        case "minimal":
            // Sluice's engine design and nothing else (MinimalCurlEngine).
            let engine = MinimalCurlEngine(concurrency: concurrency, caFile: ca)
            let cURL = url.absoluteString.utf8CString.map { $0 }
            fetch = {
                let received = await engine.get(cURL)
                if received < 0 { throw CocoaError(.fileReadUnknown) }
                return received
            }
            shutdown = { engine.stop() }
        case "urlsession":
            guard url.scheme == "http" || ca == nil else {
                print(#"{"unsupported": "URLSession on Linux cannot trust a private CA"}"#)
                exit(0)
            }
            let configuration = URLSessionConfiguration.default
            configuration.httpMaximumConnectionsPerHost = concurrency
            let session = URLSession(configuration: configuration)
            fetch = { try await session.data(from: url).0.count }
        case "ahc":
            var tls = NIOSSL.TLSConfiguration.makeClientConfiguration()
            if let ca { tls.trustRoots = .file(ca) }
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
            configuration.httpVersion = .automatic
            let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let request = HTTPClientRequest(url: url.absoluteString)
            fetch = {
                let response = try await httpClient.execute(request, timeout: .seconds(30))
                return try await response.body.collect(upTo: 1 << 20).readableBytes
            }
            shutdown = { try await httpClient.shutdown() }
        default:
            throw CocoaError(.featureUnsupported)
        }
        let bytes = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<concurrency {
                group.addTask(executorPreference: executor) {
                    var bytes: Int64 = 0
                    for _ in 0..<perWorker { bytes += Int64(try await fetch()) }
                    return bytes
                }
            }
            return try await group.reduce(0, +)
        }
        // Read while the session (and its engine thread) still exists.
        let times = threadTimes()
        threadTimesAtEnd.withLock { $0 = times }
        try await shutdown?()
        return (perWorker * concurrency, bytes)
    }
}

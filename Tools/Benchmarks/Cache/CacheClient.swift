import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SluiceCache
import SluiceTransport

/// One run of the cache benchmark: `cache-client MODE URL REQUESTS CONCURRENCY [FOLDER]`, printing one
/// JSON line `{"operations": N, "seconds": S, "fromCache": H}` (`fromCache` -1 where the client cannot tell).
///
/// Every mode first sends one GET (not counted), then REQUESTS GETs of the same URL, CONCURRENCY at a time:
/// - `network`: Sluice without a cache;
/// - `memory`, `disk`: Sluice with an HTTPCache on a MemoryCacheStore, or a DiskCacheStore in FOLDER;
/// - `urlsession`: URLSession with a URLCache (20 MiB memory, 150 MiB disk in FOLDER) and the default policy.
@main
struct CacheClient {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 4, let url = URL(string: arguments[1]), let total = Int(arguments[2]),
            let concurrency = Int(arguments[3])
        else {
            FileHandle.standardError.write(Data("usage: cache-client network|memory|disk|urlsession URL REQUESTS CONCURRENCY [FOLDER]\n".utf8))
            exit(2)
        }
        let folder = URL(fileURLWithPath: arguments.count > 4 ? arguments[4] : NSTemporaryDirectory() + "sluice-cache-bench-\(getpid())")
        do {
            let fetch: @Sendable () async throws -> Bool
            switch arguments[0] {
            case "network", "memory", "disk":
                var configuration = SessionConfiguration()
                configuration.maximumConnectionsPerHost = concurrency
                if arguments[0] == "memory" { configuration.cache = HTTPCache(store: MemoryCacheStore()) }
                if arguments[0] == "disk" { configuration.cache = HTTPCache(store: try DiskCacheStore(directory: folder)) }
                let session = SessionManager(configuration: configuration)
                let request = HTTPRequest(url: url)
                fetch = { try await session.data(for: request).metrics.source == .cache }
            case "urlsession":
                let configuration = URLSessionConfiguration.default
                configuration.httpMaximumConnectionsPerHost = concurrency
                configuration.urlCache = URLCache(memoryCapacity: 20 << 20, diskCapacity: 150 << 20, diskPath: folder.path)
                configuration.requestCachePolicy = .useProtocolCachePolicy
                let session = URLSession(configuration: configuration)
                fetch = {
                    _ = try await session.data(from: url)
                    return false
                }
            default:
                throw CocoaError(.featureUnsupported)
            }
            _ = try await fetch()
            let started = ContinuousClock.now
            let perWorker = total / concurrency
            let hits = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        var hits = 0
                        for _ in 0..<perWorker {
                            if try await fetch() { hits += 1 }
                        }
                        return hits
                    }
                }
                var total = 0
                for try await hits in group { total += hits }
                return total
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let fromCache = arguments[0] == "urlsession" ? -1 : hits
            print(#"{"operations": \#(perWorker * concurrency), "seconds": \#(seconds), "fromCache": \#(fromCache)}"#)
        } catch {
            FileHandle.standardError.write(Data("cache-client \(arguments[0]) failed: \(error)\n".utf8))
            exit(1)
        }
    }
}

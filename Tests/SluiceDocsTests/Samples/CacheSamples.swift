import Foundation
import Sluice
import SluiceCache

// The samples of docs/cache.md, compiled.
func cachedManager(baseURL: URL, cachesFolder: URL) throws -> HTTPSessionManager {
    var configuration = SessionConfiguration.default
    let store = try DiskCacheStore(directory: cachesFolder)  // 150 MiB by default
    configuration.cache = HTTPCache(store: store)
    return HTTPSessionManager(baseURL: baseURL, configuration: configuration)
}

func sessionWithMemoryCache() -> SessionManager {
    var configuration = SessionConfiguration()
    let megabyte = 1 << 20
    configuration.cache = HTTPCache(store: MemoryCacheStore(capacity: 20 * megabyte))
    return SessionManager(configuration: configuration)
}

func cachePolicies(_ session: SessionManager, url: URL) async throws {
    var request = HTTPRequest(url: url)
    request.cachePolicy = .returnCacheDataDontLoad  // stored data whatever its age, never the network
    do {
        let stored = try await session.data(for: request)
        print(stored.metrics.source)  // cache, or stale cache when past its freshness
    } catch {
        guard error.code == .cacheMiss else { throw error }
        print("nothing stored for \(url)")
    }
}

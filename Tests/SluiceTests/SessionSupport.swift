import Foundation
import Logging
import Sluice
import SluiceTestSupport
import Testing

/// Managers for the umbrella tests, against httpbin of `Tools/testenv`.
enum Support {
    static func httpbin() throws -> URL { try TestEnvironment.url(for: .httpbin) }

    static func manager(interceptor: (any RequestInterceptor)? = nil, logger: Logger? = nil) throws -> HTTPSessionManager {
        var configuration = SessionConfiguration()
        configuration.completionQueue = DispatchQueue(label: "sluice.tests.completion")
        return HTTPSessionManager(
            baseURL: try httpbin(), configuration: configuration, interceptor: interceptor,
            logger: logger ?? Logger(label: "sluice.tests") { _ in SwiftLogNoOpLogHandler() })
    }

    static func json(_ value: (any Sendable)?) throws -> [String: Parameters] {
        let parameters = try #require(value as? Parameters)
        guard case .dictionary(let dictionary) = parameters else {
            Issue.record("not a dictionary: \(parameters)")
            return [:]
        }
        return Dictionary(uniqueKeysWithValues: dictionary.map { ($0.key, $0.value) })
    }

    static func string(_ value: Parameters?) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    static func dictionary(_ value: Parameters?) -> [String: Parameters] {
        guard case .dictionary(let dictionary) = value else { return [:] }
        return Dictionary(uniqueKeysWithValues: dictionary.map { ($0.key, $0.value) })
    }
}

/// A log handler that keeps every record, for assertions.
struct CapturingLogHandler: LogHandler {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    final class Store: Sendable {
        let records = Locked<[Record]>([])
        var all: [Record] { records.withLock { $0 } }
    }

    let store: Store
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.records.withLock { $0.append(Record(level: event.level, message: "\(event.message)", metadata: merged)) }
    }

    static func logger(level: Logger.Level) -> (Logger, Store) {
        let store = Store()
        var logger = Logger(label: "sluice.tests.capture") { _ in CapturingLogHandler(store: store, logLevel: level) }
        logger.logLevel = level
        return (logger, store)
    }
}

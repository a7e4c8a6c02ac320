import Foundation
import SluiceCore
import SluiceGzip
import SluiceTestSupport
import SluiceTransport
import Testing

@testable import SluiceCache

/// The cache against nginx locations that each send one combination of caching headers, the proof read
/// from nginx's own access log: a fresh hit leaves no line there, a revalidation leaves a 304 with no
/// body bytes.
@Suite("HTTPCache against nginx's caching headers", .tags(.server), .needsServers, .serialized)
struct HTTPCacheNginxTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let location: String
        /// Requests nginx logs for two GETs.
        let reachingServer: Int
        /// The second GET's status in nginx's log, when it reached it.
        let secondStatus: Int?
        let secondSource: ResponseSource
        var testDescription: String { location }
    }

    static let rows: [Row] = [
        Row(location: "max-age", reachingServer: 1, secondStatus: nil, secondSource: .cache),
        Row(location: "expires", reachingServer: 1, secondStatus: nil, secondSource: .cache),
        Row(location: "private", reachingServer: 1, secondStatus: nil, secondSource: .cache),
        Row(location: "no-cache", reachingServer: 2, secondStatus: 304, secondSource: .revalidatedCache),
        Row(location: "must-revalidate", reachingServer: 2, secondStatus: 304, secondSource: .revalidatedCache),
        Row(location: "last-modified-only", reachingServer: 2, secondStatus: 304, secondSource: .revalidatedCache),
        Row(location: "no-store", reachingServer: 2, secondStatus: 200, secondSource: .network),
    ]

    struct LogLine: Decodable {
        let uri: String
        let status: Int
        let body_bytes_sent: Int
        let accept_encoding: String
    }

    /// nginx's log lines for `uri`, once at least `count` are there. nginx writes a line after it has sent
    /// the response, so a client can hold the whole answer before its line exists: the log is read until
    /// `count` lines are there. So that a line too many shows too, one more request, a marker, is then sent
    /// through `session`, on the kept-alive connection the test's requests used (nginx logs a request before
    /// it reads the next one on that connection), and the lines are read once the marker's line is there.
    static func logged(_ uri: String, expecting count: Int, after session: SessionManager) async throws -> [LogLine] {
        let path = try #require(TestEnvironment.requireServers().nginxAccessLog, "the test environment names no nginx access log")
        func lines(for uri: String) throws -> [LogLine] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(LogLine.self, from: Data($0.utf8)) }
                .filter { $0.uri == uri }
        }
        try await Wait.until("\(count) line(s) for \(uri) in nginx's access log") { try lines(for: uri).count >= count }
        let marker = "/plugins/text.txt?marker=\(UUID().uuidString)"
        _ = try await session.data(for: TestEnvironment.request(.http, marker))
        try await Wait.until("the line for the marker \(marker) in nginx's access log") { try !lines(for: marker).isEmpty }
        return try lines(for: uri)
    }

    static func session(gzip: Bool = false) throws -> SessionManager {
        var configuration = SessionConfiguration()
        if gzip { configuration.registry = try SerializerRegistry(plugins: [GzipPlugin()]) }
        configuration.cache = HTTPCache()
        return SessionManager(configuration: configuration)
    }

    /// A URL of the location no other test asked for (the log is shared).
    static func uniqueURI(_ location: String) -> String { "/cached/\(location)/text.txt?run=\(UUID().uuidString)" }

    @Test("two GETs: what reaches nginx, with what status, and where the second answer came from", arguments: rows)
    func twoGets(row: Row) async throws {
        let session = try Self.session()
        let uri = Self.uniqueURI(row.location)
        let request = try TestEnvironment.request(.http, uri)
        let first = try await session.data(for: request)
        let second = try await session.data(for: request)
        let expected = try TestEnvironment.servedFile("plugins/text.txt")
        #expect(first.data == expected)
        #expect(second.data == expected)
        #expect(second.metrics.source == row.secondSource)
        let lines = try await Self.logged(uri, expecting: row.reachingServer, after: session)
        #expect(lines.count == row.reachingServer, "nginx logged \(lines.map(\.status))")
        if let status = row.secondStatus, lines.count == 2 {
            #expect(lines[1].status == status)
            if status == 304 { #expect(lines[1].body_bytes_sent == 0, "a 304 carries no body") }
        }
    }

    @Test("Vary: X-Lang: the same value is served from the store, another goes to nginx")
    func varyCustom() async throws {
        let session = try Self.session()
        let uri = Self.uniqueURI("vary-custom")
        var english = try TestEnvironment.request(.http, uri)
        try english.headers.add(name: "X-Lang", value: "en")
        var french = english
        try french.headers.set(name: "X-Lang", value: "fr")
        _ = try await session.data(for: english)
        #expect(try await session.data(for: english).metrics.source == .cache)
        #expect(try await session.data(for: french).metrics.source == .network)
        #expect(try await session.data(for: french).metrics.source == .cache)
        #expect(try await Self.logged(uri, expecting: 2, after: session).count == 2)
    }

    @Test("Vary: Accept-Encoding with gzip on the fly: one request reaches nginx, gzipped; the stored body is served decoded")
    func varyGzip() async throws {
        let session = try Self.session(gzip: true)
        let uri = Self.uniqueURI("vary-gzip")
        let request = try TestEnvironment.request(.http, uri)
        _ = try await session.data(for: request)
        let second = try await session.data(for: request)
        #expect(second.data == (try TestEnvironment.servedFile("plugins/text.txt")))
        #expect(second.metrics.source == .cache)
        let lines = try await Self.logged(uri, expecting: 1, after: session)
        #expect(lines.count == 1)
        #expect(lines.first?.accept_encoding.contains("gzip") == true)
    }

    @Test("a POST nginx refuses (405 for a static file) invalidates nothing: the next GET is still served from the store")
    func failedPostKeeps() async throws {
        let session = try Self.session()
        let uri = Self.uniqueURI("max-age")
        _ = try await session.data(for: TestEnvironment.request(.http, uri))
        var post = try TestEnvironment.request(.http, uri, method: .post)
        post.body = .bytes(Data("x".utf8))
        #expect(try await session.data(for: post).response.statusCode == 405)
        #expect(try await session.data(for: TestEnvironment.request(.http, uri)).metrics.source == .cache)
        #expect(try await Self.logged(uri, expecting: 2, after: session).map(\.status) == [200, 405])
    }
}

/// A group of conformance cases about one contract (header rules, query strings, a server, a plugin).
public protocol ConformanceSuite: Sendable {
    /// A stable identifier such as `core.headers`.
    var name: String { get }
    /// One line on what the suite checks.
    var summary: String { get }
    /// What the suite needs from outside the tool: vectors, servers. Default: nothing, so it runs anywhere.
    var requirements: ConformanceRequirements { get }

    /// Runs every case.
    ///
    /// - Throws: ``ConformanceError`` when the suite cannot run at all (missing vectors or servers);
    ///   the report records that as a failed suite.
    func run(in context: ConformanceContext) async throws -> [CaseResult]
}

extension ConformanceSuite {
    /// Nothing: the suite runs anywhere.
    public var requirements: ConformanceRequirements { [] }
}

/// What suites run against: the vectors, the servers, the plugin registry.
public struct ConformanceContext: Sendable {
    /// Where the vectors are, or `nil` when none were found (vector suites then fail).
    public var vectors: VectorStore?
    /// Where the servers are, or `nil` when none are configured (server suites then fail).
    public var servers: ServerEnvironment?
    /// Plugin libraries to load and check. Default none.
    public var pluginPaths: [String]
    /// Samples files (``PluginContract/init(contentsOf:callTimeout:threads:rounds:leakCheckCalls:)``), the
    /// first for the first plugin library and so on; a library without one is checked on no samples.
    /// Default none.
    public var pluginSamplePaths: [String]

    /// Creates a context.
    public init(vectors: VectorStore?, servers: ServerEnvironment?, pluginPaths: [String] = [], pluginSamplePaths: [String] = []) {
        self.vectors = vectors
        self.servers = servers
        self.pluginPaths = pluginPaths
        self.pluginSamplePaths = pluginSamplePaths
    }

    /// The vectors, or a ``ConformanceError`` saying how to provide them.
    public func requireVectors() throws -> VectorStore {
        guard let vectors else { throw ConformanceError("no conformance vectors: pass --vectors DIR") }
        return vectors
    }

    /// The servers, or a ``ConformanceError`` saying how to start them.
    public func requireServers() throws -> ServerEnvironment {
        guard let servers else {
            throw ConformanceError("the test servers are not configured; start them with \(ServerEnvironment.startCommand)")
        }
        return servers
    }
}

/// The outcome of one case.
public struct CaseResult: Sendable, Codable, Hashable {
    /// The case's identifier within its suite.
    public let id: String
    /// Whether it passed.
    public let passed: Bool
    /// What was expected and what happened, for failures (and some passes).
    public let detail: String?
    /// The expected value as text, when the case compared one (``expect(_:_:equals:)``); `nil` otherwise.
    public let expected: String?
    /// The actual value as text, when the case compared one; `nil` otherwise.
    public let actual: String?

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - id: The case's identifier within its suite.
    ///   - passed: Whether it passed.
    ///   - detail: What went wrong, or a note. Default `nil`.
    ///   - expected: The expected value as text, for reports that show it beside the actual one. Default `nil`.
    ///   - actual: The actual value as text. Default `nil`.
    public init(id: String, passed: Bool, detail: String? = nil, expected: String? = nil, actual: String? = nil) {
        self.id = id
        self.passed = passed
        self.detail = detail
        self.expected = expected
        self.actual = actual
    }

    /// The case `id` whose `body` returns what went wrong (`nil`: it passed); a thrown error fails it
    /// with the error as its detail.
    public static func check(_ id: String, _ body: () async throws -> String?) async -> CaseResult {
        do {
            let problem = try await body()
            return CaseResult(id: id, passed: problem == nil, detail: problem)
        } catch {
            return CaseResult(id: id, passed: false, detail: "\(error)")
        }
    }

    /// A passing case, or a failing one with "expected …, got …" as its detail and both values kept as
    /// ``expected`` and ``actual``.
    public static func expect<T: Equatable>(_ id: String, _ actual: T, equals expected: T) -> CaseResult {
        actual == expected
            ? CaseResult(id: id, passed: true)
            : CaseResult(
                id: id, passed: false, detail: "expected \(expected), got \(actual)",
                expected: String(describing: expected), actual: String(describing: actual))
    }
}

import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

/// The transport's suites, side by side with each other and with every other target's: the servers answer
/// many clients at once, each test reads only its own lines of a shared log (an offset taken before it acts,
/// a probe of its own in the URL), and a thread is identified by its ID, not counted. A suite whose tests
/// share something more (the proxies' logs, a Python server of its own) is serialized within itself. Tests
/// whose behaviour is sub-second time (the fault-injection and timeout suites) and tests that measure the
/// whole process (a 1 GiB transfer's peak memory, the temporary folder) run after the others, in processes
/// of their own (Tools/testenv/suite.sh).
@Suite("SluiceTransport")
enum TransportSuites {}

/// Sessions and requests for the transport tests, against the servers of `Tools/testenv`.
enum Transport {
    /// A configuration that trusts the test CA.
    static func configuration() throws -> SessionConfiguration {
        var configuration = SessionConfiguration()
        let servers = try TestEnvironment.requireServers()
        if let caFile = servers.caFile {
            configuration.tls.trustedCertificatesPEM = try Data(contentsOf: URL(fileURLWithPath: caFile))
        }
        configuration.completionQueue = DispatchQueue(label: "sluice.tests.completion")
        return configuration
    }

    static func session(_ adjust: (inout SessionConfiguration) -> Void = { _ in }) throws -> SessionManager {
        var configuration = try configuration()
        adjust(&configuration)
        return SessionManager(configuration: configuration)
    }

    static func request(_ server: ServerEnvironment.Server, _ path: String, method: HTTPMethod = .get) throws -> HTTPRequest {
        try TestEnvironment.request(server, path, method: method)
    }

    /// The path of a file nginx serves under `/files/`.
    static func servedFilePath(_ name: String) throws -> String {
        let directory = try #require(TestEnvironment.requireServers().wwwDirectory)
        return URL(fileURLWithPath: directory).appendingPathComponent("files/\(name)").path
    }

    /// The bytes nginx serves under `/files/`.
    static func servedFile(_ name: String) throws -> Data {
        try TestEnvironment.servedFile("files/\(name)")
    }

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

/// A weak reference to a task, for checking that nothing keeps it alive.
struct WeakTask: @unchecked Sendable {
    weak var task: SessionTask?
    init(_ task: SessionTask) { self.task = task }
}

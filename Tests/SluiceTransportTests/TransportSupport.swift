import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

/// Every transport suite runs inside this one, one suite at a time, beside the other targets' suites. Run
/// side by side (tried: 108 s instead of the serial run's 238 s), four tests that measure the whole process
/// failed: a 1 GiB download's peak memory counted the other suites' memory, a failed download's check of the
/// temporary folder saw another test's partial file, and two timeout tests waited over 20 s for a thread of
/// the cooperative pool that blocking tests held. Until those measure only their own, they stay serial.
@Suite("SluiceTransport", .serialized)
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

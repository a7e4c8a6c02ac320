import Foundation
import SluiceCore
import Testing
// Server discovery, the vectors and the C plugin fixtures, for every test target through this one import.
@_exported import SluiceTestEnvironment

/// Where the tests find the real servers and the conformance vectors.
///
/// Server URLs come from the `SLUICE_*` variables that `make test` exports, or from the
/// `.testenv/run/servers.json` that `make servers` leaves behind. A test that needs a server calls
/// ``url(for:)``, which fails with a message naming the server and the command that starts it.
public enum TestEnvironment {
    /// The repository's root directory.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // SluiceTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The conformance vectors in `Tests/Vectors`.
    public static let vectors = VectorStore(directory: repositoryRoot.appendingPathComponent("Tests/Vectors"))

    /// The configured servers, or why there are none.
    public static let servers: Result<ServerEnvironment, ConformanceError> = {
        do {
            return .success(try ServerEnvironment.load(searchFrom: repositoryRoot.path))
        } catch let error as ConformanceError {
            return .failure(error)
        } catch {
            return .failure(ConformanceError("\(error)"))
        }
    }()

    /// The servers, or an error saying how to start them.
    ///
    /// Every way a test reaches a server comes through here, so here the tiers are kept honest: a test
    /// that asks for the servers must carry the `.server` tag (with ``Testing/Trait/needsServers``), or
    /// `make check`, which starts no server, would run it. Such a test fails at once, in every tier, with
    /// a message saying what to add.
    ///
    /// - Throws: ``ConformanceError`` when the running test is not tagged `.server`, or when no servers are
    ///   configured (naming the start command).
    public static func requireServers() throws -> ServerEnvironment {
        if let test = Test.current, !test.tags.contains(.server) {
            throw ConformanceError(
                "\(test.name) reaches the test servers but its suite is not tagged: add .tags(.server), .needsServers")
        }
        return try servers.get()
    }

    /// The base URL of `server`.
    ///
    /// - Throws: ``ConformanceError`` naming the server and `make servers` when it is not configured
    ///   or does not answer on its port.
    public static func url(for server: ServerEnvironment.Server) throws -> URL {
        let environment = try requireServers()
        guard let url = environment.url(for: server) else {
            throw ConformanceError(
                "\(server.displayName) is not configured (\(server.rawValue) missing); start it with \(ServerEnvironment.startCommand)")
        }
        guard isListening(url) else {
            throw ConformanceError(
                "\(server.displayName) does not answer at \(url) (from \(environment.source)); start it with \(ServerEnvironment.startCommand)")
        }
        return url
    }

    /// The fault proxy's port for `fault` (`truncate`, `reset-mid-body`, ...), in front of nginx.
    ///
    /// - Throws: ``ConformanceError`` naming the fault and `make servers` when the proxy is not
    ///   configured or does not answer.
    public static func faultURL(_ fault: String) throws -> URL {
        let environment = try requireServers()
        guard let url = environment.faultURL(fault) else {
            throw ConformanceError("the fault proxy's \(fault) port is not configured (from \(environment.source)); start it with \(ServerEnvironment.startCommand)")
        }
        guard isListening(url) else {
            throw ConformanceError("the fault proxy's \(fault) port does not answer at \(url); start it with \(ServerEnvironment.startCommand)")
        }
        return url
    }

    /// A request for `path` on `server`.
    ///
    /// - Throws: As ``url(for:)``.
    public static func request(_ server: ServerEnvironment.Server, _ path: String, method: HTTPMethod = .get) throws -> HTTPRequest {
        let base = try url(for: server)
        return HTTPRequest(url: URL(string: base.absoluteString + path)!, method: method)
    }

    /// The bytes of a file under nginx's document root (`plugins/text.txt`).
    ///
    /// - Throws: ``ConformanceError`` when the servers are not configured; the read's error.
    public static func servedFile(_ relativePath: String) throws -> Data {
        guard let directory = try requireServers().wwwDirectory else {
            throw ConformanceError("SLUICE_WWW_DIR is not configured; start the servers with \(ServerEnvironment.startCommand)")
        }
        return try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(relativePath))
    }

    /// An example plugin library, `libSluiceNDJSONPlugin.so` by default, built next to the test executable.
    ///
    /// - Throws: ``ConformanceError`` naming the build command when it is missing.
    public static func examplePluginPath(_ product: String = "SluiceNDJSONPlugin") throws -> String {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("lib\(product).so").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConformanceError("lib\(product).so is not at \(path); build it with swift build --build-tests (make test does)")
        }
        return path
    }

    /// Whether something accepts TCP connections at the URL's host and port.
    private static func isListening(_ url: URL) -> Bool {
        guard let host = url.host, let port = url.port else { return false }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else { return false }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

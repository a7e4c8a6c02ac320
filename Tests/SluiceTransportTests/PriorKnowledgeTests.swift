import Foundation
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

extension TransportSuites {
    /// Clear-text HTTP/2 with prior knowledge against nghttpd, which libcurl 7.88 cannot reuse a connection
    /// to (a framing error before the request goes out; `curl --http2-prior-knowledge` fails the same way).
    @Suite("HTTP/2 prior knowledge against nghttpd", .tags(.server), .needsServers, .serialized)
    struct PriorKnowledgeTests {
        /// nghttpd serving `directory` in clear text on a free port, logging every frame; stopped by its PID.
        final class Nghttpd {
            /// What the file at `url` holds so far, as text.
            static func text(of url: URL) -> String {
                guard let handle = try? FileHandle(forReadingFrom: url) else { return "" }
                defer { try? handle.close() }
                return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
            }

            let process = Process()
            let output: URL
            let url: URL

            init(serving directory: URL) async throws {
                let binary = "/usr/sbin/nghttpd"
                try #require(FileManager.default.isExecutableFile(atPath: binary), "no \(binary): Tools/testenv/install.sh installs nghttp2-server")
                let port = try Self.freePort()
                output = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-nghttpd-\(UUID()).log")
                _ = FileManager.default.createFile(atPath: output.path, contents: nil)
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = ["-v", "--no-tls", "-d", directory.path, "--address=127.0.0.1", String(port)]
                process.standardOutput = try FileHandle(forWritingTo: output)
                process.standardError = FileHandle.nullDevice
                try process.run()
                url = URL(string: "http://127.0.0.1:\(port)")!
                // Its log says when it listens. (The log is read through a handle: String(contentsOf:) on a
                // file another process is writing leaked its 4 KiB read buffer, LeakSanitizer,
                // FoundationEssentials' readBytesFromFile.)
                do {
                    try await Wait.forLines(containing: "listen", inFile: output.path)
                } catch {
                    stop()
                    throw error
                }
            }

            static func freePort() throws -> Int {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(descriptor) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
                _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
                return Int(UInt16(bigEndian: address.sin_port))
            }

            /// How many requests with `method` nghttpd received.
            func received(_ method: HTTPMethod) -> Int {
                let log = Self.text(of: output)
                return log.components(separatedBy: ":method: \(method.rawValue)\n").count - 1
            }

            func stop() {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                try? FileManager.default.removeItem(at: output)
            }
        }

        @Test("every request succeeds, each method arriving once: the first reuse fails before sending and goes again on a connection of its own, later requests get their own at once")
        func everyRequestOnce() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-nghttpd-www-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("hello\n".utf8).write(to: directory.appendingPathComponent("a"))
            let server = try await Nghttpd(serving: directory)
            defer { server.stop() }
            let session = try Transport.session { $0.httpVersion = .http2 }
            let methods: [HTTPMethod] = [.get, .get, .post, .put, .get, .delete]
            var transactions: [[TaskMetrics.Transaction]] = []
            for method in methods {
                var request = HTTPRequest(url: server.url.appendingPathComponent("a"), method: method)
                if method == .post || method == .put { request.body = .bytes(Data("x=1".utf8)) }
                let response = try await session.data(for: request)
                #expect(response.response.httpVersion == .http2, "\(method)")
                transactions.append(response.metrics.transactions)
            }
            // The second request found the first's connection, failed on it before sending, and went on a new one.
            #expect(transactions[1].count == 2)
            #expect(transactions[1].first?.reusedConnection == true)
            #expect(transactions[1].first?.statusCode == 0)
            #expect(transactions.dropFirst(2).allSatisfy { $0.count == 1 && $0[0].reusedConnection == false })
            // nghttpd logs each request's frames as they arrive: wait until its log has them all.
            try await Wait.until("nghttpd's log has every request") {
                Set(methods).allSatisfy { method in server.received(method) >= methods.filter { $0 == method }.count }
            }
            for method in Set(methods) {
                #expect(server.received(method) == methods.filter { $0 == method }.count, "\(method) arrived \(server.received(method)) times")
            }
        }
    }
}

import Foundation
import SluiceBrotli
import SluiceGzip
import SluiceTransport
import SluiceZstd

/// `sluice-interop WWW_DIR CA_FILE OUTPUT.md NAME=URL...`: runs the interoperability cases against each
/// server (each `NAME` a server and protocol, e.g. `apache-h2=https://127.0.0.1:8443`), serving the test
/// environment's `files/` as its document root, and writes the matrix as Markdown. Run by
/// `Tools/testenv/interop.sh` (`make interop`), which starts the servers. Exits 0 whatever the cells say:
/// the matrix is the report.
@main
enum InteropProgram {
    struct Case {
        let name: String
        let run: @Sendable (SessionManager, URL, URL) async throws -> String?
    }

    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count >= 5 else {
            FileHandle.standardError.write(Data("usage: sluice-interop WWW_DIR CA_FILE OUTPUT.md NAME=URL...\n".utf8))
            exit(2)
        }
        let www = URL(fileURLWithPath: arguments[1])
        let output = URL(fileURLWithPath: arguments[3])
        let servers = arguments.dropFirst(4).compactMap { argument -> (String, URL)? in
            let parts = argument.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let url = URL(string: String(parts[1])) else { return nil }
            return (String(parts[0]), url)
        }
        var configuration = SessionConfiguration()
        configuration.tls.trustedCertificatesPEM = try? Data(contentsOf: URL(fileURLWithPath: arguments[2]))
        configuration.registry = (try? SerializerRegistry(plugins: [GzipPlugin(), BrotliPlugin(), ZstdPlugin()])) ?? SerializerRegistry()
        configuration.resourceTimeout = 60
        var rows: [(String, [(String, String?)])] = []
        var passed = 0
        var total = 0
        for (name, base) in servers {
            var session = configuration
            session.httpVersion = name.hasSuffix("h2c") ? .http2 : (name.hasSuffix("h1") ? .http1_1 : .http2OverTLS)
            let manager = SessionManager(configuration: session)
            var cells: [(String, String?)] = []
            for item in cases {
                let problem: String?
                do {
                    problem = try await item.run(manager, base, www)
                } catch {
                    problem = "\(error)"
                }
                cells.append((item.name, problem))
                total += 1
                if problem == nil { passed += 1 }
                print("\(name) \(item.name): \(problem.map { "FAIL \($0)" } ?? "pass")")
            }
            rows.append((name, cells))
        }
        var lines = ["| server | " + cases.map(\.name).joined(separator: " | ") + " |"]
        lines.append("|---|" + String(repeating: "---|", count: cases.count))
        for (name, cells) in rows {
            lines.append("| \(name) | " + cells.map { $0.1 == nil ? "pass" : "**fail**" }.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("\(passed) of \(total) passed.")
        for (name, cells) in rows {
            for (caseName, problem) in cells {
                if let problem { lines.append("- \(name) \(caseName): \(problem.replacingOccurrences(of: "\n", with: " "))") }
            }
        }
        try? FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? lines.joined(separator: "\n").appending("\n").write(to: output, atomically: true, encoding: .utf8)
        print("\(passed) of \(total) passed; matrix in \(output.path)")
    }

    static func expect(_ condition: Bool, _ problem: @autoclosure () -> String) -> String? { condition ? nil : problem() }

    static let cases: [Case] = [
        Case(name: "GET") { session, base, www in
            let response = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/small.txt")))
            return expect(response.data == (try Data(contentsOf: www.appendingPathComponent("files/small.txt"))), "body differs")
        },
        Case(name: "1 MiB") { session, base, www in
            let response = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/1m.bin")))
            return expect(response.data == (try Data(contentsOf: www.appendingPathComponent("files/1m.bin"))), "body differs (\(response.data.count) bytes)")
        },
        Case(name: "HEAD") { session, base, _ in
            let response = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/1m.bin"), method: .head))
            return expect(response.response.statusCode == 200 && response.data.isEmpty && response.response.headers["Content-Length"] == "1048576",
                          "status \(response.response.statusCode), \(response.data.count) body bytes")
        },
        Case(name: "Range") { session, base, www in
            var request = HTTPRequest(url: base.appendingPathComponent("files/1m.bin"))
            try request.headers.set(name: "Range", value: "bytes=100-199")
            let response = try await session.data(for: request)
            let whole = try Data(contentsOf: www.appendingPathComponent("files/1m.bin"))
            // A server may ignore Range (RFC 9110 §14.2) and send the whole body with 200: also right.
            if response.response.statusCode == 200 { return expect(response.data == whole, "200 with another body") }
            return expect(response.response.statusCode == 206 && response.data == whole[100..<200], "status \(response.response.statusCode), \(response.data.count) bytes")
        },
        Case(name: "404") { session, base, _ in
            let response = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/missing")))
            return expect(response.response.statusCode == 404, "status \(response.response.statusCode)")
        },
        Case(name: "304") { session, base, _ in
            let first = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/small.txt")))
            guard let modified = first.response.headers["Last-Modified"] else { return "no Last-Modified" }
            var request = HTTPRequest(url: base.appendingPathComponent("files/small.txt"))
            try request.headers.set(name: "If-Modified-Since", value: modified)
            let response = try await session.data(for: request)
            return expect(response.response.statusCode == 304 && response.data.isEmpty, "status \(response.response.statusCode)")
        },
        Case(name: "reuse ×5") { session, base, _ in
            for index in 0..<5 {
                let response = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/small.txt")))
                if response.response.statusCode != 200 { return "request \(index): status \(response.response.statusCode)" }
            }
            return nil
        },
        Case(name: "20 at once") { session, base, _ in
            let statuses = await withTaskGroup(of: Int.self) { group -> [Int] in
                for _ in 0..<20 {
                    group.addTask { (try? await session.data(for: HTTPRequest(url: base.appendingPathComponent("files/64k.bin"))).response.statusCode) ?? 0 }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            return expect(statuses.allSatisfy { $0 == 200 }, "statuses \(Set(statuses).sorted())")
        },
        Case(name: "download 16 MiB") { session, base, www in
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-interop-\(UUID())")
            defer { try? FileManager.default.removeItem(at: target) }
            let response = try await session.download(for: HTTPRequest(url: base.appendingPathComponent("files/16m.bin"))) { _, _ in target }
            return expect(try Data(contentsOf: response.fileURL) == (try Data(contentsOf: www.appendingPathComponent("files/16m.bin"))), "file differs")
        },
        Case(name: "stream") { session, base, _ in
            let (stream, response) = try await session.bytes(for: HTTPRequest(url: base.appendingPathComponent("files/1m.bin")))
            var count = 0
            for try await chunk in stream { count += chunk.count }
            return expect(response.statusCode == 200 && count == 1 << 20, "\(count) bytes")
        },
        Case(name: "POST") { session, base, _ in
            var request = HTTPRequest(url: base.appendingPathComponent("files/small.txt"), method: .post)
            request.body = .bytes(Data(repeating: 0x61, count: 100_000))
            let response = try await session.data(for: request)
            return expect((200..<600).contains(response.response.statusCode), "status \(response.response.statusCode)")
        },
        Case(name: "Accept-Encoding") { session, base, www in
            let response = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("plugins/text.txt")))
            return expect(response.data == (try Data(contentsOf: www.appendingPathComponent("plugins/text.txt"))),
                          "body differs (Content-Encoding \(response.response.headers["Content-Encoding"] ?? "none"))")
        },
    ]
}

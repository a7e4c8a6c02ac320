import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("Authentication, cookies and HTTP/2 multiplexing", .tags(.server), .needsServers, .serialized)
    struct AuthenticationAndCookieTests {
        static let credentialCases: [(String, Set<Credential.Scheme>)] = [
            ("/basic-auth/user/passwd", [.basic, .digest]), ("/digest-auth/auth/user/passwd", [.digest]),
            // No challenge comes from a hidden endpoint: Basic alone is sent with the first request.
            ("/hidden-basic-auth/user/passwd", [.basic]),
        ]

        @Test("Basic and Digest credentials from the configuration", arguments: credentialCases)
        func credentials(path: String, schemes: Set<Credential.Scheme>) async throws {
            let session = try Transport.session { $0.credential = Credential(user: "user", password: "passwd", schemes: schemes) }
            let result = try await session.data(for: Transport.request(.httpbin, path))
            #expect(result.response.statusCode == 200)
            #expect(try Transport.json(result.data)["authenticated"] as? Bool == true)
        }

        @Test("a challenge handler supplies credentials once on a 401; returning nil delivers the 401")
        func challengeHandler() async throws {
            let asked = Locked(0)
            let session = try Transport.session {
                $0.authenticationChallengeHandler = { _, challenge in
                    asked.withLock { $0 += 1 }
                    #expect(challenge.statusCode == 401)
                    return Credential(user: "user", password: "passwd", schemes: [.digest])
                }
            }
            let result = try await session.data(for: Transport.request(.httpbin, "/digest-auth/auth/user/passwd"))
            #expect(result.response.statusCode == 200)
            #expect(try Transport.json(result.data)["user"] as? String == "user")
            #expect(asked.withLock { $0 } == 1)

            let refusing = try Transport.session { $0.authenticationChallengeHandler = { _, _ in nil } }
            let refused = try await refusing.data(for: Transport.request(.httpbin, "/basic-auth/user/passwd"))
            #expect(refused.response.statusCode == 401)

            let wrong = try Transport.session {
                $0.authenticationChallengeHandler = { _, _ in Credential(user: "user", password: "wrong") }
            }
            #expect(try await wrong.data(for: Transport.request(.httpbin, "/basic-auth/user/passwd")).response.statusCode == 401)
        }

        @Test("credentials are not sent to another origin after a redirect")
        func credentialsStayHome() async throws {
            let base = try TestEnvironment.url(for: .httpbin)
            let session = try Transport.session { $0.credential = Credential(user: "user", password: "passwd", schemes: [.basic]) }
            let other = "http://localhost:\(base.port!)/headers"
            let result = try await session.data(for: Transport.request(.httpbin, "/redirect-to?url=\(other)"))
            let headers = try Transport.json(result.data)["headers"] as? [String: String]
            #expect(headers?["Authorization"] == nil)
        }

        @Test("cookies are stored and sent back within the session; off when the request says so")
        func cookies() async throws {
            let session = try Transport.session()
            _ = try await session.data(for: Transport.request(.httpbin, "/cookies/set?flavour=oatmeal"))
            let echoed = try Transport.json(try await session.data(for: Transport.request(.httpbin, "/cookies")).data)
            #expect((echoed["cookies"] as? [String: String])?["flavour"] == "oatmeal")

            var withoutCookies = try Transport.request(.httpbin, "/cookies")
            withoutCookies.shouldHandleCookies = false
            let none = try Transport.json(try await session.data(for: withoutCookies).data)
            #expect((none["cookies"] as? [String: String])?.isEmpty == true)

            let disabled = try Transport.session { $0.handlesCookies = false }
            _ = try await disabled.data(for: Transport.request(.httpbin, "/cookies/set?flavour=oatmeal"))
            let empty = try Transport.json(try await disabled.data(for: Transport.request(.httpbin, "/cookies")).data)
            #expect((empty["cookies"] as? [String: String])?.isEmpty == true)
        }

        @Test("cookies stay right as pooled handles pass between requests that handle cookies and requests that do not")
        func cookiesOnReusedHandles() async throws {
            let session = try Transport.session()
            _ = try await session.data(for: Transport.request(.httpbin, "/cookies/set?flavour=oatmeal"))
            // Mixed rounds: each handle serves requests of both kinds, one after another.
            for round in 0..<3 {
                let cookies = try await withThrowingTaskGroup(of: (Bool, [String: String]).self) { group in
                    for index in 0..<24 {
                        group.addTask {
                            var request = try Transport.request(.httpbin, "/cookies")
                            request.shouldHandleCookies = index % 3 != 0
                            let echoed = try Transport.json(try await session.data(for: request).data)
                            return (request.shouldHandleCookies, echoed["cookies"] as? [String: String] ?? [:])
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for (handles, received) in cookies {
                    #expect(received == (handles ? ["flavour": "oatmeal"] : [:]), "round \(round)")
                }
            }
            // A cookie set on a handle that served cookies before is stored too.
            _ = try await session.data(for: Transport.request(.httpbin, "/cookies/set?topping=raisin"))
            let both = try Transport.json(try await session.data(for: Transport.request(.httpbin, "/cookies")).data)
            #expect(both["cookies"] as? [String: String] == ["flavour": "oatmeal", "topping": "raisin"])
        }

        @Test("HTTP/2 multiplexes concurrent requests over one connection")
        func multiplexing() async throws {
            let session = try Transport.session { $0.maximumConnectionsPerHost = 1 }
            // Open the connection first so every later request can join it.
            _ = try await session.data(for: Transport.request(.https, "/status"))
            let request = try Transport.request(.https, "/files/64k.bin")
            let results = try await withThrowingTaskGroup(of: DataResponse.self) { group in
                for _ in 0..<50 { group.addTask { try await session.data(for: request) } }
                return try await group.reduce(into: [DataResponse]()) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0.response.httpVersion == .http2 && $0.data.count == 64 << 10 })
            let fresh = results.compactMap(\.metrics.transactions.first).filter { !$0.reusedConnection }
            #expect(fresh.isEmpty, "\(fresh.count) requests opened a new connection")

            // At the same time, not one after another: three bodies of seconds each (1 MiB at 256 KB/s per
            // request, nginx's pace) on the one connection. All three start together, so one after another
            // the last would take three times as long as the first; together they take about as long.
            // Judged from the tasks' own durations, which nginx's pace sets, not from a wall-clock bound
            // that a busy machine overruns.
            let slow = try Transport.request(.https, "/slower/files/1m.bin")
            let overlapping = try await withThrowingTaskGroup(of: DataResponse.self) { group in
                for _ in 0..<3 { group.addTask { try await session.data(for: slow) } }
                return try await group.reduce(into: [DataResponse]()) { $0.append($1) }
            }
            #expect(overlapping.allSatisfy { $0.response.httpVersion == .http2 && $0.data.count == 1 << 20 })
            #expect(Set(overlapping.compactMap { $0.response.headers.first("X-Connection") }).count == 1)
            let durations = overlapping.map(\.metrics.duration)
            #expect(durations.max()! < 2 * durations.min()!, "durations \(durations): one after another, not multiplexed")
        }

        @Test("maximumConnections limits connections in total, across hosts; per host without it")
        func totalConnections() async throws {
            // Answers after 0.3 s and closes: requests overlap, each on a connection of its own.
            let reply = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
            func peak(maximum: Int?) async throws -> Int {
                let server = try RawTCPServer(reply: .delayedBytes(reply, after: .milliseconds(300)))
                defer { server.stop() }
                let session = try Transport.session {
                    $0.maximumConnectionsPerHost = 4
                    if let maximum { $0.maximumConnections = maximum }
                }
                // Two host names for the one server: two hosts to curl.
                let hosts = ["127.0.0.1", "localhost"].map { URL(string: "http://\($0):\(server.port)/")! }
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<12 {
                        group.addTask { try await session.data(for: HTTPRequest(url: hosts[index % 2])).response.statusCode }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 12))
                return server.peakConnections
            }
            #expect(try await peak(maximum: 2) == 2)
            #expect(try await peak(maximum: nil) == 8)
        }
    }
}

import Foundation
import SluiceConformance
import SluiceCore
import SluiceSecurity
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    /// Security policies and server trust against the trust-test servers of `Tools/testenv`.
    @Suite("Server trust against real TLS servers", .serialized)
    struct ServerTrustTests {
        static func environment() throws -> (ServerEnvironment, SecurityPolicyTable.Certificates) {
            let servers = try TestEnvironment.requireServers()
            return (servers, try SecurityPolicyTable.Certificates(servers: servers))
        }

        /// Whether nginx logged `probe` after `offset`, waiting up to two seconds for a request that did
        /// reach it.
        static func logged(_ probe: String, after offset: UInt64, servers: ServerEnvironment, expected: Bool) async throws -> Bool {
            for _ in 0..<(expected ? 40 : 4) {
                if try SecurityPolicyTable.accessLogRecords(probe, servers: servers, after: offset) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        static func session(_ tls: TLSConfiguration, byHost: [String: TLSConfiguration] = [:]) throws -> SessionManager {
            try Transport.session {
                $0.tls = tls
                $0.tlsByHost = byHost
            }
        }

        @Test("AFNetworking's security-policy outcomes; refused requests never reach nginx", arguments: SecurityPolicyTable.rows)
        func table(_ row: SecurityPolicyTable.Row) async throws {
            let (servers, certificates) = try Self.environment()
            let run = try await SecurityPolicyTable.run(row, servers: servers, certificates: certificates)
            #expect(run.outcome == row.expected, "mirrors \(row.mirrors)")
            guard let probe = run.probe else { return }
            if case .refused = run.outcome {
                #expect(try await !Self.logged(probe, after: run.logOffset, servers: servers, expected: false), "nginx logged a refused request")
            } else {
                #expect(try await Self.logged(probe, after: run.logOffset, servers: servers, expected: true), "nginx did not log an answered request")
            }
        }

        @Test("a pinning refusal is transport.pinnedKeyMismatch, before any byte of the body is sent")
        func pinningRefusalSendsNothing() async throws {
            let (servers, certificates) = try Self.environment()
            var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [certificates.chainLeaf])
            policy.trustedCertificates = [certificates.root]
            let base = try TestEnvironment.url(for: .https)
            let body = Data(repeating: 0x5A, count: 1 << 20)

            let refusing = try Self.session(policy.tlsConfiguration(for: base))
            let logOffset = try SecurityPolicyTable.accessLogSize(servers: servers)
            let probe = UUID().uuidString
            var request = try Transport.request(.https, "/upload?probe=\(probe)", method: .post)
            request.headers.add(try HTTPHeader(name: "Content-Type", value: "application/octet-stream"))
            let error = await #expect(throws: SluiceError.self) { try await refusing.upload(for: request, from: .bytes(body)) }
            #expect(error?.code == .pinnedKeyMismatch)
            #expect(error?.code != .cancelled && error?.code != .tlsFailed)
            #expect(error?.library == nil, "the refusal is the policy's, not a libcurl failure")
            #expect(error?.message.contains("127.0.0.1") == true)
            #expect(try await !Self.logged(probe, after: logOffset, servers: servers, expected: false))

            // The same upload with the right pin reaches nginx whole, and is logged.
            policy.pinnedCertificates = [certificates.serverLeaf]
            let accepting = try Self.session(policy.tlsConfiguration(for: base))
            let control = UUID().uuidString
            var controlRequest = request
            controlRequest.url = URL(string: base.absoluteString + "/upload?probe=\(control)")!
            let response = try await accepting.upload(for: controlRequest, from: .bytes(body))
            #expect(try Transport.json(response.data)["received"] as? Int == body.count)
            #expect(try await Self.logged(control, after: logOffset, servers: servers, expected: true))
        }

        /// Records every chain it is asked about; refuses once it has accepted `accepting` of them.
        struct RecordingEvaluator: ServerTrustEvaluator {
            let seen = Locked<[ServerCertificateChain]>([])
            let accepting: Int

            func evaluate(_ chain: ServerCertificateChain) throws(SluiceError) {
                let count = seen.withLock { seen in
                    seen.append(chain)
                    return seen.count
                }
                if count > accepting { throw SluiceError(.untrustedChain, "refused request \(count)") }
            }

            static func == (lhs: Self, rhs: Self) -> Bool { lhs.seen.identity == rhs.seen.identity }
            func hash(into hasher: inout Hasher) { hasher.combine(seen.identity) }
        }

        @Test("the evaluator sees the verified chain, leaf to root, on every request, reused connections included")
        func evaluatorOnEveryRequest() async throws {
            let (_, certificates) = try Self.environment()
            var tls = try Transport.configuration().tls
            let evaluator = RecordingEvaluator(accepting: 2)
            tls.serverTrustEvaluator = evaluator
            let session = try Self.session(tls)
            let first = try await session.data(for: Transport.request(.chain, "/status"))
            let second = try await session.data(for: Transport.request(.chain, "/status"))
            #expect(second.metrics.transactions.first?.reusedConnection == true)
            let error = await #expect(throws: SluiceError.self) { try await session.data(for: Transport.request(.chain, "/status")) }
            #expect(error?.message == "refused request 3")
            #expect(first.response.statusCode == 200)

            let chains = evaluator.seen.withLock { $0 }
            #expect(chains.count == 3)
            for chain in chains {
                #expect(chain.isVerified && chain.host == "127.0.0.1")
                #expect(chain.certificates == [certificates.chainLeaf, certificates.chainIntermediate, certificates.root])
            }
        }

        /// Blocks every evaluation until `gate` is signalled (or 20 s pass), then accepts.
        struct BlockingEvaluator: ServerTrustEvaluator {
            let gate: DispatchSemaphore
            func evaluate(_ chain: ServerCertificateChain) throws(SluiceError) { _ = gate.wait(timeout: .now() + 20) }
            static func == (lhs: Self, rhs: Self) -> Bool { lhs.gate === rhs.gate }
            func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(gate)) }
        }

        @Test("an evaluator that blocks is bounded: the request fails after the evaluation timeout, the session's other requests go on")
        func blockingEvaluatorIsBounded() async throws {
            _ = try Self.environment()
            let gate = DispatchSemaphore(value: 0)
            defer { for _ in 0..<4 { gate.signal() } }
            var tls = try Transport.configuration().tls
            tls.serverTrustEvaluator = BlockingEvaluator(gate: gate)
            tls.serverTrustEvaluationTimeout = 0.5
            let session = try Self.session(tls)
            let started = ContinuousClock.now
            let blocked = Task { try await session.data(for: Transport.request(.chain, "/status")) }
            try await Task.sleep(for: .milliseconds(100))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await session.data(for: Transport.request(.http, "/files/small.txt")).response.statusCode }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
            let error = await #expect(throws: SluiceError.self) { try await blocked.value }
            #expect(error?.code == .trustEvaluationTimedOut)
            #expect(ContinuousClock.now - started < .seconds(3), "the engine waited for the evaluator past its bound")
        }

        @Test("a policy's public-key hashes are what libcurl's CURLOPT_PINNEDPUBLICKEY computes (RSA and ECDSA leaves)")
        func libcurlPins() async throws {
            let (_, certificates) = try Self.environment()
            for (server, leaf) in [(ServerEnvironment.Server.chain, certificates.chainLeaf), (.https, certificates.serverLeaf)] {
                var tls = try Transport.configuration().tls
                tls.pinnedPublicKeys = try SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [leaf]).pinnedPublicKeyHashes()
                let response = try await Self.session(tls).data(for: Transport.request(server, "/status"))
                #expect(response.response.statusCode == 200, "\(server)")
            }
            // libcurl's own pin looks at the leaf only: an intermediate's key does not pass there.
            var tls = try Transport.configuration().tls
            tls.pinnedPublicKeys = try SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [certificates.chainIntermediate])
                .pinnedPublicKeyHashes()
            let error = await #expect(throws: SluiceError.self) {
                try await Self.session(tls).data(for: Transport.request(.chain, "/status"))
            }
            #expect(error?.code == .pinnedKeyMismatch)
            #expect(error?.library?.code == 90)
        }

        @Test("per-host policies: each host by its own policy, others by the default, host names without regard to case")
        func perHost() async throws {
            let (_, certificates) = try Self.environment()
            var fallback = SecurityPolicy.defaultPolicy
            fallback.trustedCertificates = [certificates.root]
            var pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [certificates.selfSigned])
            pinned.trustedCertificates = [certificates.root]
            let settings = try ServerTrustManager(defaultPolicy: fallback, policies: ["LocalHost": pinned]).tlsConfigurations()
            let session = try Self.session(settings.default, byHost: settings.byHost)
            let port = try TestEnvironment.url(for: .https).port!

            let byAddress = try await session.data(for: HTTPRequest(url: URL(string: "https://127.0.0.1:\(port)/status")!))
            #expect(byAddress.response.statusCode == 200)
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: HTTPRequest(url: URL(string: "https://LOCALHOST:\(port)/status")!))
            }
            #expect(error?.code == .pinnedCertificateMissing)

            // The map keys are matched without regard to case too, when set by hand.
            let byHand = try Self.session(settings.default, byHost: ["LOCALHOST": settings.byHost["localhost"]!])
            let again = await #expect(throws: SluiceError.self) {
                try await byHand.data(for: HTTPRequest(url: URL(string: "https://localhost:\(port)/status")!))
            }
            #expect(again?.code == .pinnedCertificateMissing)
        }

        @Test("mutual TLS with an encrypted key and its passphrase; a wrong passphrase or a foreign key is invalidClientIdentity")
        func encryptedIdentity() async throws {
            let servers = try TestEnvironment.requireServers()
            let certificateFile = try #require(servers.clientCertificate)
            let encryptedKey = try #require(servers.values["SLUICE_CLIENT_KEY_ENCRYPTED"])
            let passphrase = try #require(servers.values["SLUICE_CLIENT_KEY_PASSPHRASE"])
            let foreignKey = try #require(servers.values["SLUICE_SERVER_CERT"].map { $0.replacingOccurrences(of: ".pem", with: ".key") })

            var tls = try Transport.configuration().tls
            tls.clientIdentity = try .init(certificateFile: certificateFile, privateKeyFile: encryptedKey, passphrase: passphrase)
            let accepted = try await Self.session(tls).data(for: Transport.request(.mutualTLSStrict, "/status"))
            #expect(accepted.response.statusCode == 200)

            for (key, phrase) in [(encryptedKey, "wrong"), (foreignKey, nil)] {
                tls.clientIdentity = try .init(certificateFile: certificateFile, privateKeyFile: key, passphrase: phrase)
                let error = await #expect(throws: SluiceError.self) {
                    try await Self.session(tls).data(for: Transport.request(.mutualTLSStrict, "/status"))
                }
                #expect(error?.code == .invalidClientIdentity, "\(key)")
            }
        }
    }
}

import Foundation
import SluiceConformance
import SluiceCore
import SluiceSecurity
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    /// Security policies and server trust against the trust-test servers of `Tools/testenv`.
    @Suite("Server trust against real TLS servers", .tags(.server), .needsServers, .serialized)
    struct ServerTrustTests {
        static func environment() throws -> (ServerEnvironment, SecurityPolicyTable.Certificates) {
            let servers = try TestEnvironment.requireServers()
            return (servers, try SecurityPolicyTable.Certificates(servers: servers))
        }

        /// Waits until nginx has logged `probe` after `offset`: the line it writes once it has answered a
        /// request that reached it.
        static func awaitLogged(_ probe: String, after offset: UInt64, servers: ServerEnvironment) async throws {
            let log = try #require(servers.nginxAccessLog, "SLUICE_NGINX_ACCESS_LOG is not set")
            try await Wait.forLines(containing: probe, inFile: log, from: offset)
        }

        /// Whether nginx logged `probe` after `offset`, read once nginx has logged a control request sent
        /// after the one carrying `probe` ended. nginx writes a request's line as it answers it, so a
        /// request that reached it is logged by then; its two workers could at worst let a late line slip
        /// past the check (weakening it), never make it fail.
        static func loggedBeforeControl(_ probe: String, after offset: UInt64, servers: ServerEnvironment) async throws -> Bool {
            let control = UUID().uuidString
            let answered = try await Transport.session().data(for: Transport.request(.http, "/files/small.txt?probe=\(control)"))
            #expect(answered.response.statusCode == 200, "the control request")
            try await awaitLogged(control, after: offset, servers: servers)
            return try SecurityPolicyTable.accessLogRecords(probe, servers: servers, after: offset)
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
                #expect(try await !Self.loggedBeforeControl(probe, after: run.logOffset, servers: servers), "nginx logged a refused request")
            } else {
                try await Self.awaitLogged(probe, after: run.logOffset, servers: servers)
                #expect(
                    try SecurityPolicyTable.accessLogRecords(probe, servers: servers, after: run.logOffset),
                    "nginx did not log an answered request")
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

            // The same upload with the right pin reaches nginx whole, and is logged.
            policy.pinnedCertificates = [certificates.serverLeaf]
            let accepting = try Self.session(policy.tlsConfiguration(for: base))
            let control = UUID().uuidString
            var controlRequest = request
            controlRequest.url = URL(string: base.absoluteString + "/upload?probe=\(control)")!
            let response = try await accepting.upload(for: controlRequest, from: .bytes(body))
            #expect(try Transport.json(response.data)["received"] as? Int == body.count)
            try await Self.awaitLogged(control, after: logOffset, servers: servers)
            #expect(try SecurityPolicyTable.accessLogRecords(control, servers: servers, after: logOffset))
            // The refused upload is not logged: had it reached nginx, its line would have come before the
            // line of this upload, sent after the refusal (nginx's two workers could at worst weaken this).
            #expect(try !SecurityPolicyTable.accessLogRecords(probe, servers: servers, after: logOffset))
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

        /// Blocks every evaluation until `gate` is signalled (or 60 s pass, the suite's deadline for what never
        /// happens), then accepts. Says when it is first asked, and whether an evaluation has returned.
        struct BlockingEvaluator: ServerTrustEvaluator {
            let gate: DispatchSemaphore
            let asked = TestSignal<Void>()
            let returned = Locked(false)
            func evaluate(_ chain: ServerCertificateChain) throws(SluiceError) {
                asked.send()
                _ = gate.wait(timeout: .now() + 60)
                returned.withLock { $0 = true }
            }
            static func == (lhs: Self, rhs: Self) -> Bool { lhs.gate === rhs.gate }
            func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(gate)) }
        }

        @Test("an evaluator that blocks is bounded: the request fails after the evaluation timeout, the session's other requests go on")
        func blockingEvaluatorIsBounded() async throws {
            _ = try Self.environment()
            let gate = DispatchSemaphore(value: 0)
            defer { for _ in 0..<4 { gate.signal() } }
            var tls = try Transport.configuration().tls
            let evaluator = BlockingEvaluator(gate: gate)
            tls.serverTrustEvaluator = evaluator
            tls.serverTrustEvaluationTimeout = 0.5
            let session = try Self.session(tls)
            let blocked = Task { try await session.data(for: Transport.request(.chain, "/status")) }
            try await evaluator.asked.value("the evaluator is asked about the blocked request's chain")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await session.data(for: Transport.request(.http, "/files/small.txt")).response.statusCode }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
            let error = await #expect(throws: SluiceError.self) { try await blocked.value }
            #expect(error?.code == .trustEvaluationTimedOut)
            // The request failed and the others were served while the evaluator was still blocked (the gate
            // opens only as the test ends): an ordering, which a busy machine cannot upset as it could a time.
            #expect(!evaluator.returned.withLock { $0 }, "the engine waited for the evaluator past its bound")
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

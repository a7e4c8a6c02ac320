import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// Answering a `401` with a credential the program already has, in one line, against httpbin.
@Suite("Authorization interceptor", .serialized)
struct AuthorizationInterceptorTests {
    @Test("a bearer token answers the challenge once, then goes with every request to the origin", .tags(.server), .needsServers)
    func bearer() async throws {
        let manager = try Support.manager(interceptor: .authorization(bearerToken: "t0k3n"))
        let first = try await manager.get("bearer")
        #expect(first.attempts == 2)  // 401, then answered
        #expect(try Support.json(first.value)["token"] == "t0k3n")
        let second = try await manager.get("bearer")
        #expect(second.attempts == 1)  // carried from the start once the origin challenged
        #expect(second.request.headers["Authorization"] == "Bearer t0k3n")
    }

    @Test("a user name and password answer a Basic challenge; a refused credential's 401 is delivered, not looped", .tags(.server), .needsServers)
    func basic() async throws {
        let manager = try Support.manager(interceptor: .authorization(user: "user", password: "pässwd"))
        let accepted = try await manager.get("basic-auth/user/pässwd")
        #expect(accepted.attempts == 2)
        #expect(try Support.json(accepted.value)["authenticated"] == true)
        let refused = await #expect(throws: SluiceError.self) { try await manager.get("basic-auth/user/other") }
        #expect(refused?.response?.statusCode == 401)
        #expect(refused?.attempts == 1)  // the origin had challenged: the credential went at once, and was refused
    }

    @Test("sent before being asked when told so, and never to another origin than the manager's", .tags(.server), .needsServers)
    func preemptiveAndOrigin() async throws {
        let preemptive = try Support.manager(interceptor: .authorization(bearerToken: "early", sendsPreemptively: true))
        let answered = try await preemptive.get("bearer")
        #expect(answered.attempts == 1)
        #expect(try Support.json(answered.value)["token"] == "early")

        let elsewhere = try Support.manager(
            interceptor: .authorization(bearerToken: "secret", origin: URL(string: "https://api.example.com")))
        let refused = await #expect(throws: SluiceError.self) { try await elsewhere.get("bearer") }
        #expect(refused?.response?.statusCode == 401)
        #expect(refused?.attempts == 1)
        #expect(refused?.request?.headers["Authorization"] == nil)
    }

    @Test("a request with an Authorization field of its own keeps it; a token with a line break is a typed error", .tags(.server), .needsServers)
    func ownFieldAndBadToken() async throws {
        let manager = try Support.manager(interceptor: .authorization(bearerToken: "t0k3n", sendsPreemptively: true))
        let own = try await manager.get("bearer", headers: ["Authorization": "Bearer mine"])
        #expect(try Support.json(own.value)["token"] == "mine")
        let broken = try Support.manager(interceptor: .authorization(bearerToken: "a\r\nX-Injected: 1", sendsPreemptively: true))
        let error = await #expect(throws: SluiceError.self) { try await broken.get("bearer") }
        #expect(error?.code == .invalidHeaderValue)
    }

    @Test("credential values and origins, without a server", arguments: [
        (AuthorizationInterceptor.Credential.bearer("abc"), "Bearer abc"),
        (.basic(user: "Aladdin", password: "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        (.authorization("Token xyz"), "Token xyz"),
    ])
    func headerValues(credential: AuthorizationInterceptor.Credential, value: String) {
        #expect(credential.headerValue == value)
    }
}

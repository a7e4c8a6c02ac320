import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import SluiceTestSupport
import SluiceTransport
import Testing

/// Every OpenAPI suite runs inside this one, one suite at a time: they share httpbin's workers, and some
/// hold one for seconds.
@Suite("SluiceOpenAPI", .serialized)
enum OpenAPISuites {}

/// The generated httpbin client on a `SessionManager`, against the httpbin of `Tools/testenv`.
enum HTTPBin {
    /// httpbin's base URL (fails with how to start it when it is not running).
    static func url() throws -> URL { try TestEnvironment.url(for: .httpbin) }

    /// A session with the defaults, changed by `adjust`.
    static func session(_ adjust: (inout SessionConfiguration) -> Void = { _ in }) -> SessionManager {
        var configuration = SessionConfiguration()
        adjust(&configuration)
        return SessionManager(configuration: configuration)
    }

    /// The generated client sending through `session` to httpbin, or to `serverURL` when given.
    static func client(_ session: SessionManager = session(), serverURL: URL? = nil) throws -> Client {
        Client(serverURL: try serverURL ?? url(), transport: SluiceClientTransport(transport: session))
    }

    /// The value of a query or form argument httpbin echoed, when it is one string.
    static func single(_ value: Components.Schemas.ArgValue?) -> String? {
        if case .case1(let string) = value { return string }
        return nil
    }

    /// The values of a repeated argument httpbin echoed.
    static func list(_ value: Components.Schemas.ArgValue?) -> [String]? {
        if case .case2(let strings) = value { return strings }
        return nil
    }

    /// The `SluiceError` that a generated client's `ClientError` carries (or the error itself, when a body read
    /// after the call threw it unwrapped).
    static func sluiceError(_ error: any Error) -> SluiceError? {
        if let clientError = error as? ClientError { return clientError.underlyingError as? SluiceError }
        return error as? SluiceError
    }
}

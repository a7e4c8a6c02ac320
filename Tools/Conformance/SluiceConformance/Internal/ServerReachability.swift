import Foundation

/// Whether the servers a server suite needs are there: configured, and answering.
enum ServerReachability {
    /// The servers checked before any server suite runs: nginx and httpbin are separate processes, and the
    /// other nginx listeners live in the same process as the plain one.
    static let probed: [ServerEnvironment.Server] = [.http, .httpbin]

    /// Why the server suites cannot run on `servers`, with the command that starts them; `nil` when every
    /// probed server answers (with any HTTP status) within `timeoutSeconds`.
    static func problem(with servers: ServerEnvironment?, timeoutSeconds: Int = 3) -> String? {
        let start = "start them with \(ServerEnvironment.startCommand)"
        guard let servers else {
            return "the test servers are not configured (no SLUICE_HTTP_URL in the environment, no --servers file, "
                + "no .testenv/run/servers.json above the current directory); \(start)"
        }
        for server in probed {
            guard let url = servers.url(for: server) else {
                return "\(server.rawValue) is not set in \(servers.source); \(start)"
            }
            let result = ServerProbe.get(url, timeoutSeconds: timeoutSeconds)
            if !result.succeeded {
                return "\(server.displayName) does not answer at \(url) (from \(servers.source): "
                    + "curl \(result.curlCode), \(result.curlMessage)); \(start)"
            }
        }
        return nil
    }
}

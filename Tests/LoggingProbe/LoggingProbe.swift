import Foundation
import Logging
import Sluice

/// `sluice-logging-probe HTTPBIN_URL default|logger`: runs a few `HTTPSessionManager` calls against httpbin
/// (successes, a 404, a 500 retried once) with the manager's default logger, or with a plain swift-log
/// `Logger` passed in (which writes to stderr). For SluiceTests: with the default, nothing reaches stderr.
@main
struct LoggingProbe {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let base = URL(string: arguments[1]), ["default", "logger"].contains(arguments[2])
        else {
            FileHandle.standardError.write(Data("usage: sluice-logging-probe HTTPBIN_URL default|logger\n".utf8))
            exit(2)
        }
        let retry = RetryPolicy(retryLimit: 1, exponentialBackoffScale: .zero)
        let manager = arguments[2] == "default"
            ? HTTPSessionManager(baseURL: base, interceptor: retry)
            : HTTPSessionManager(baseURL: base, interceptor: retry, logger: Logger(label: "sluice.http"))
        var outcomes: [String] = []
        for path in ["get", "status/404", "status/500", "get?q=1"] {
            do {
                let response = try await manager.get(path)
                outcomes.append("\(path): \(response.response.statusCode)")
            } catch {
                outcomes.append("\(path): \(error.code)")
            }
        }
        print(outcomes.joined(separator: "\n"))
        exit(0)
    }
}

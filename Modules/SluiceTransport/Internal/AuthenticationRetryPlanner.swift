/// Decides, with no I/O, when a `401` is retried with a credential from the session's
/// ``AuthenticationChallengeHandler``: once per task, for a task whose body is not already being handed
/// to its reader (a stream has delivered its head), and only when there is a handler to ask. Basic and
/// Digest challenges to a configured credential are answered by libcurl itself, before this.
enum AuthenticationRetryPlanner {
    /// Whether the handler is asked for a credential after a final response with `statusCode`.
    static func asksHandler(statusCode: Int, kind: SessionTask.Kind, askedAlready: Bool, hasHandler: Bool) -> Bool {
        statusCode == 401 && kind != .stream && !askedAlready && hasHandler
    }
}

import Foundation
import SluiceCore

/// Which requests a stub answers: conditions on the method, URL, query, header fields and body, all of
/// which must hold.
///
/// Build one from the static functions and join them with ``and(_:)`` or `&&`:
///
/// ```swift
/// let matcher: StubMatcher = .post("https://api.example.com/items") && .header("Content-Type", "application/json")
/// ```
///
/// Each condition has a description, so a request no stub answers fails with an error that names the
/// closest stub and the conditions of it the request missed.
public struct StubMatcher: Sendable, CustomStringConvertible {
    struct Condition: Sendable {
        /// What must hold, as a reader of a failure message reads it: `URL is https://…`.
        let description: String
        /// What the request had instead, for a failure message.
        let observed: @Sendable (RecordedRequest) -> String
        let holds: @Sendable (RecordedRequest) -> Bool
    }

    let conditions: [Condition]

    init(_ conditions: [Condition]) { self.conditions = conditions }

    init(
        _ description: String, observed: @escaping @Sendable (RecordedRequest) -> String,
        holds: @escaping @Sendable (RecordedRequest) -> Bool
    ) {
        self.init([Condition(description: description, observed: observed, holds: holds)])
    }

    /// Whether every condition holds for `request`.
    public func matches(_ request: RecordedRequest) -> Bool { conditions.allSatisfy { $0.holds(request) } }

    /// The conditions, joined by "and"; "any request" for none.
    public var description: String {
        conditions.isEmpty ? "any request" : conditions.map(\.description).joined(separator: " and ")
    }

    /// A matcher whose conditions are this one's and `other`'s.
    public func and(_ other: StubMatcher) -> StubMatcher { StubMatcher(conditions + other.conditions) }

    /// `lhs.and(rhs)`.
    public static func && (lhs: StubMatcher, rhs: StubMatcher) -> StubMatcher { lhs.and(rhs) }

    // MARK: Any request, method

    /// Every request.
    public static var any: StubMatcher { StubMatcher([]) }

    /// Requests with `method`.
    public static func method(_ method: HTTPMethod) -> StubMatcher {
        StubMatcher("method is \(method.rawValue)", observed: { "method \($0.method.rawValue)" }) { $0.method == method }
    }

    // MARK: URL

    /// Requests for exactly `url` (its fragment left out on both sides; the query counts, in order).
    public static func url(_ url: URL) -> StubMatcher {
        let expected = Self.withoutFragment(url.absoluteString)
        return StubMatcher("URL is \(expected)", observed: { "URL \(Self.withoutFragment($0.url.absoluteString))" }) {
            Self.withoutFragment($0.url.absoluteString) == expected
        }
    }

    /// Requests for exactly the URL `url` spells (see ``url(_:)-(URL)``); a string that is not a URL
    /// matches a request whose URL reads the same.
    public static func url(_ url: String) -> StubMatcher {
        guard let parsed = URL(string: url) else {
            return StubMatcher("URL is \(url)", observed: { "URL \($0.url.absoluteString)" }) { $0.url.absoluteString == url }
        }
        return Self.url(parsed)
    }

    /// Requests whose URL (fragment left out) starts with `prefix`, compared byte for byte.
    public static func urlPrefix(_ prefix: String) -> StubMatcher {
        StubMatcher("URL starts with \(prefix)", observed: { "URL \($0.url.absoluteString)" }) {
            Self.withoutFragment($0.url.absoluteString).utf8.starts(with: prefix.utf8)
        }
    }

    /// Requests whose whole URL (fragment left out) matches the regular expression `pattern` (Swift
    /// `Regex` syntax). An invalid pattern matches nothing, and its description says so.
    public static func urlMatching(_ pattern: String) -> StubMatcher {
        let valid = (try? Regex(pattern)) != nil
        return StubMatcher(
            valid ? "URL matches /\(pattern)/" : "URL matches /\(pattern)/ (not a valid pattern)",
            observed: { "URL \($0.url.absoluteString)" }
        ) { request in
            guard let regex = try? Regex(pattern) else { return false }
            return (try? regex.wholeMatch(in: Self.withoutFragment(request.url.absoluteString))) != nil
        }
    }

    /// Requests whose path is `path` (percent-decoded, as `URL.path` reads it).
    public static func path(_ path: String) -> StubMatcher {
        StubMatcher("path is \(path)", observed: { "path \($0.url.path)" }) { $0.url.path == path }
    }

    /// Requests whose query has every name and value of `items` (percent-decoded; other items and the
    /// order do not count). A name may appear more than once in the query; one of its values must match.
    public static func query(_ items: [String: String]) -> StubMatcher {
        let listed = items.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return StubMatcher("query has \(listed)", observed: { "query \($0.url.query ?? "(none)")" }) { request in
            let present = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return items.allSatisfy { name, value in present.contains { $0.name == name && $0.value == value } }
        }
    }

    // MARK: Header fields

    /// Requests with a field `name` (case-insensitive) whose value is `value`, or with any value for
    /// `nil`. A field sent more than once matches when one of its values does.
    public static func header(_ name: String, _ value: String? = nil) -> StubMatcher {
        StubMatcher(
            value.map { "\(name) is \($0)" } ?? "has \(name)",
            observed: { request in
                let values = request.headers.values(for: name)
                return values.isEmpty ? "no \(name)" : "\(name) \(values.joined(separator: ", "))"
            }
        ) { request in
            let values = request.headers.values(for: name)
            guard let value else { return !values.isEmpty }
            return values.contains(value)
        }
    }

    // MARK: Body

    /// Requests whose body is exactly `bytes`.
    public static func body(_ bytes: Data) -> StubMatcher {
        StubMatcher("body is \(Self.describe(bytes))", observed: { "body \(Self.describe($0.body))" }) { $0.body == bytes }
    }

    /// Requests whose body is `text` in UTF-8.
    public static func body(_ text: String) -> StubMatcher { body(Data(text.utf8)) }

    /// Requests whose body is the JSON `json` is: the same values, whatever the order of object keys and
    /// the spacing.
    public static func jsonBody(_ json: String) -> StubMatcher {
        let expected = Self.canonicalJSON(Data(json.utf8))
        return StubMatcher("body is the JSON \(json)", observed: { "body \(Self.describe($0.body))" }) { request in
            guard let expected, let sent = Self.canonicalJSON(request.body) else { return false }
            return sent == expected
        }
    }

    /// Requests whose body holds for `predicate`; `description` names it in failure messages.
    public static func body(_ description: String = "body passes a check", where predicate: @escaping @Sendable (Data) -> Bool)
        -> StubMatcher
    {
        StubMatcher(description, observed: { "body \(Self.describe($0.body))" }) { predicate($0.body) }
    }

    // MARK: Anything

    /// Requests for which `predicate` holds; `description` names it in failure messages.
    public static func matching(_ description: String, _ predicate: @escaping @Sendable (RecordedRequest) -> Bool) -> StubMatcher {
        StubMatcher(description, observed: { $0.description }, holds: predicate)
    }

    // MARK: Method and URL together

    /// `GET` requests for `url`.
    public static func get(_ url: String) -> StubMatcher { method(.get) && Self.url(url) }
    /// `HEAD` requests for `url`.
    public static func head(_ url: String) -> StubMatcher { method(.head) && Self.url(url) }
    /// `POST` requests for `url`.
    public static func post(_ url: String) -> StubMatcher { method(.post) && Self.url(url) }
    /// `PUT` requests for `url`.
    public static func put(_ url: String) -> StubMatcher { method(.put) && Self.url(url) }
    /// `PATCH` requests for `url`.
    public static func patch(_ url: String) -> StubMatcher { method(.patch) && Self.url(url) }
    /// `DELETE` requests for `url`.
    public static func delete(_ url: String) -> StubMatcher { method(.delete) && Self.url(url) }

    // MARK: Helpers

    /// How many conditions hold for `request`, and the descriptions of those that do not, each with
    /// what the request had.
    func misses(_ request: RecordedRequest) -> (held: Int, missed: [String]) {
        var held = 0
        var missed: [String] = []
        for condition in conditions {
            if condition.holds(request) {
                held += 1
            } else {
                missed.append("\(condition.description) (the request has \(condition.observed(request)))")
            }
        }
        return (held, missed)
    }

    static func withoutFragment(_ text: String) -> String {
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    static func describe(_ bytes: Data) -> String {
        if bytes.isEmpty { return "empty" }
        if bytes.count <= 200, let text = String(data: bytes, encoding: .utf8) { return "\"\(text)\"" }
        return "\(bytes.count) bytes"
    }

    static func canonicalJSON(_ data: Data) -> Data? {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    }
}

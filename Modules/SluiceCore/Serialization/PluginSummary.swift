/// What a registered plugin offers, as plain values for listings and reports.
public struct PluginSummary: Sendable, Hashable, Codable {
    /// The plugin's name.
    public let name: String
    /// The plugin's version.
    public let version: String
    /// The response media types it declares, as strings.
    public let responseMediaTypes: [String]
    /// The names of its content codings.
    public let contentCodings: [String]
    /// Whether it offers a request serializer.
    public let providesRequestSerializer: Bool

    /// Creates a summary.
    public init(
        name: String, version: String, responseMediaTypes: [String], contentCodings: [String],
        providesRequestSerializer: Bool
    ) {
        self.name = name
        self.version = version
        self.responseMediaTypes = responseMediaTypes
        self.contentCodings = contentCodings
        self.providesRequestSerializer = providesRequestSerializer
    }
}

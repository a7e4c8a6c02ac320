

/// Holds serializer plugins and answers which serializer decodes a media type and which content
/// coding has a name.
///
/// Lookups by media type ignore parameters and rank matches from most to least specific:
///
/// 1. the exact type (`application/problem+json`);
/// 2. a suffix pattern with the same type (`application/*+json`);
/// 3. a suffix pattern with any type (`*/*+json`);
/// 4. the suffix's own type: `application/problem+json` falls back to a plugin for `application/json`
///    (RFC 6839 structured-syntax suffixes);
/// 5. a type wildcard (`text/*` for `text/csv`);
/// 6. `*/*`.
///
/// Among equally specific matches the plugin registered last wins, so registering a plugin for a
/// type overrides an earlier one. Asking with a pattern (`text/*`) finds the plugins for concrete types
/// under it. All methods are safe to call from many threads at once.
public final class SerializerRegistry: Sendable {
    private struct State {
        var plugins: [any SerializerPlugin] = [] {
            didSet { acceptEncoding = Self.acceptEncoding(of: plugins) }
        }
        /// ``SerializerRegistry/acceptEncoding``, made when the plugins change (a session reads it for
        /// every request).
        private(set) var acceptEncoding: String?

        static func acceptEncoding(of plugins: [any SerializerPlugin]) -> String? {
            var names: [String] = []
            for coding in plugins.flatMap(\.contentCodings) where coding.name != "identity" && !names.contains(coding.name) {
                names.append(coding.name)
            }
            return names.isEmpty ? nil : names.joined(separator: ", ")
        }
    }
    private let state = Locked(State())

    /// What a media-type lookup found.
    public struct ResponseMatch: Sendable {
        /// The plugin that answered.
        public let plugin: any SerializerPlugin
        /// The media type or pattern it declared that matched.
        public let declaredType: MediaType
        /// The serializer it made for the concrete type asked about.
        public let serializer: any ResponseSerializer
    }

    /// Creates an empty registry.
    public init() {}

    /// Creates a registry holding `plugins`, registered in order.
    ///
    /// - Throws: As ``register(_:replacing:)``.
    public init(plugins: [any SerializerPlugin]) throws(SluiceError) {
        for plugin in plugins { try register(plugin) }
    }

    // MARK: Registering

    /// Adds a plugin.
    ///
    /// - Parameters:
    ///   - plugin: The plugin.
    ///   - replacing: Whether a plugin of the same name is replaced (in its place) rather than refused.
    ///     Default `false`.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/pluginInvalid`` when the name or version is
    ///   malformed, or ``SluiceError/Code/pluginDuplicate`` when the name is taken and `replacing` is
    ///   `false`. The registry is left unchanged.
    public func register(_ plugin: any SerializerPlugin, replacing: Bool = false) throws(SluiceError) {
        try Self.check(plugin)
        try state.withLock { (state) throws(SluiceError) in
            if let index = state.plugins.firstIndex(where: { $0.name == plugin.name }) {
                guard replacing else {
                    throw SluiceError(
                        .pluginDuplicate,
                        "a plugin named \(plugin.name) (version \(state.plugins[index].version)) is already registered")
                }
                state.plugins.remove(at: index)
            }
            state.plugins.append(plugin)
        }
    }

    /// Removes the plugin with this name. Returns whether there was one.
    @discardableResult
    public func unregister(named name: String) -> Bool {
        state.withLock { state in
            guard let index = state.plugins.firstIndex(where: { $0.name == name }) else { return false }
            state.plugins.remove(at: index)
            return true
        }
    }

    // MARK: Looking up

    /// The registered plugins, in registration order.
    public var plugins: [any SerializerPlugin] { state.withLock { $0.plugins } }

    /// The plugin with this name, or `nil`.
    public func plugin(named name: String) -> (any SerializerPlugin)? {
        state.withLock { $0.plugins.first { $0.name == name } }
    }

    /// The best response serializer for `mediaType`, or `nil` when no plugin matches.
    public func responseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? {
        responseMatch(for: mediaType)?.serializer
    }

    /// The best match for `mediaType` with the plugin and declared type that made it, or `nil`.
    public func responseMatch(for mediaType: MediaType) -> ResponseMatch? {
        var best: (rank: Int, order: Int, plugin: any SerializerPlugin, declared: MediaType)?
        for (order, plugin) in plugins.enumerated() {
            for declared in plugin.responseMediaTypes {
                guard let rank = Self.rank(declared: declared, query: mediaType) else { continue }
                if best == nil || rank > best!.rank || (rank == best!.rank && order >= best!.order) {
                    best = (rank, order, plugin, declared)
                }
            }
        }
        guard let best else { return nil }
        let concrete = mediaType.isWildcard ? best.declared : mediaType
        guard let serializer = best.plugin.makeResponseSerializer(for: concrete) else { return nil }
        return ResponseMatch(plugin: best.plugin, declaredType: best.declared, serializer: serializer)
    }

    /// The content coding answering to `name` (or an alias), ignoring case; the one registered last
    /// wins. `nil` when none does.
    public func contentCoding(named name: String) -> (any ContentCoding)? {
        plugins.reversed().lazy.flatMap(\.contentCodings).first { $0.answers(to: name) }
    }

    /// The names of the decodable content codings, without `identity`, in registration order and
    /// without repeats: the value for `Accept-Encoding` (`gzip, deflate`), or `nil` when there is none.
    public var acceptEncoding: String? { state.withLock { $0.acceptEncoding } }

    /// A description of each plugin: name, version, media types and codings.
    public var listing: [PluginSummary] {
        plugins.map { plugin in
            PluginSummary(
                name: plugin.name, version: plugin.version,
                responseMediaTypes: plugin.responseMediaTypes.map(\.description),
                contentCodings: plugin.contentCodings.map(\.name),
                providesRequestSerializer: plugin.requestSerializer != nil)
        }
    }

    // MARK: Rules

    /// How specifically `declared` covers `query`, higher is better; `nil` when it does not.
    static func rank(declared: MediaType, query: MediaType) -> Int? {
        if query.isWildcard {
            if declared.essence == query.essence { return 7 }
            return query.matches(declared) && !declared.isWildcard ? 1 : nil
        }
        if declared.essence == query.essence { return 6 }
        if declared.subtype.hasPrefix("*+"), declared.matches(query) { return declared.type == "*" ? 4 : 5 }
        if let suffix = query.suffix, declared.type == "application", declared.subtype == suffix { return 3 }
        if declared.subtype == "*", declared.type != "*", declared.type == query.type { return 2 }
        if declared.type == "*", declared.subtype == "*" { return 1 }
        return nil
    }

    private static func check(_ plugin: any SerializerPlugin) throws(SluiceError) {
        guard PluginNaming.isValidName(plugin.name) else {
            throw SluiceError(
                .pluginInvalid, "plugin name \(plugin.name.debugDescription) must be letters, digits, '.', '_' or '-'")
        }
        guard PluginNaming.isValidVersion(plugin.version) else {
            throw SluiceError(
                .pluginInvalid,
                "plugin \(plugin.name) has version \(plugin.version.debugDescription); expected MAJOR.MINOR.PATCH")
        }
    }
}

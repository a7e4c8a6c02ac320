import Foundation

/// The conformance vectors: JSON files under `Tests/Vectors/` that both `swift test` and
/// `sluice-conformance` read.
///
/// A user's own vectors sit beside the bundled ones: each directory in ``extraDirectories`` holds files
/// with the bundled files' names (`request/query-string.json`, ...), and their cases are run together with
/// the bundled cases of the same file.
public struct VectorStore: Sendable {
    /// The `Tests/Vectors` directory.
    public let directory: URL
    /// Directories of a user's own vector files, read beside ``directory``. Default none.
    public let extraDirectories: [URL]

    /// Uses the vectors in `directory`, and the user's files in `extraDirectories` (default none).
    public init(directory: URL, extraDirectories: [URL] = []) {
        self.directory = directory
        self.extraDirectories = extraDirectories
    }

    /// The store with `directories` of a user's vectors added.
    ///
    /// - Throws: ``ConformanceError`` when one is not a directory, holds no `.json` file, or holds a
    ///   `.json` file whose name no bundled vector file has (a typo would otherwise be ignored).
    public func adding(_ directories: [URL]) throws -> VectorStore {
        for extra in directories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: extra.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConformanceError("vectors directory \(extra.path) does not exist")
            }
            let files = Self.jsonFiles(under: extra)
            guard !files.isEmpty else { throw ConformanceError("vectors directory \(extra.path) holds no .json file") }
            let known = Set(Self.jsonFiles(under: directory))
            if let unknown = files.first(where: { !known.contains($0) }) {
                throw ConformanceError(
                    "\(extra.path)/\(unknown) has no bundled counterpart; a user's vector file takes the name of the bundled file it adds to (\(known.sorted().joined(separator: ", ")))")
            }
        }
        return VectorStore(directory: directory, extraDirectories: extraDirectories + directories)
    }

    /// The `.json` files under `directory`, as paths relative to it.
    static func jsonFiles(under directory: URL) -> [String] {
        let items = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        return items.filter { $0.hasSuffix(".json") }.sorted()
    }

    /// Finds the vectors: `explicit` when given, else `$SLUICE_VECTORS`, else the first `Tests/Vectors`
    /// holding `core/headers.json` found by walking up from `searchFrom` (default: the current directory),
    /// else one found by walking up from the running executable — in a Sluice checkout, or in the
    /// `.build/checkouts/<package>` of a package that depends on Sluice — so the tool works wherever it is
    /// run from.
    ///
    /// - Throws: ``ConformanceError`` when `explicit` (or `$SLUICE_VECTORS`) is not a directory, or when
    ///   no vectors directory is found.
    public static func locate(explicit: String? = nil, searchFrom: String? = nil) throws -> VectorStore {
        if let path = explicit ?? ProcessInfo.processInfo.environment["SLUICE_VECTORS"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConformanceError("vectors directory \(path) does not exist")
            }
            return VectorStore(directory: URL(fileURLWithPath: path))
        }
        let start = searchFrom ?? FileManager.default.currentDirectoryPath
        let marker = "Tests/Vectors/core/headers.json"
        if let found = FileLocator.findUpward(marker, from: start) ?? executableVectors(marker: marker) {
            let directory = URL(fileURLWithPath: found).deletingLastPathComponent().deletingLastPathComponent()
            return VectorStore(directory: directory)
        }
        throw ConformanceError(
            "no Tests/Vectors directory above \(start) or the sluice-conformance executable; "
                + "pass --vectors DIR or set SLUICE_VECTORS")
    }

    /// `marker` above the running executable, or in a package checkout under a `.build` above it.
    private static func executableVectors(marker: String) -> String? {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let directory = executable.deletingLastPathComponent().path
        if let found = FileLocator.findUpward(marker, from: directory) { return found }
        return FileLocator.findInCheckouts(marker, above: directory)
    }

    /// Decodes the vector file at `relativePath` (for example `core/headers.json`), with the cases of the
    /// same file in each of ``extraDirectories`` added: where both files have an array under the same key,
    /// the user's entries follow the bundled ones; other keys of the user's file are added where the
    /// bundled file has none.
    ///
    /// - Throws: ``ConformanceError`` when the bundled file is missing, a file is not JSON, or the
    ///   merged vectors do not decode as `T`.
    public func load<T: Decodable>(_ type: T.Type, from relativePath: String) throws -> T {
        let url = directory.appendingPathComponent(relativePath)
        let extras = extraDirectories.map { $0.appendingPathComponent(relativePath) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        do {
            guard !extras.isEmpty else { return try JSONDecoder().decode(T.self, from: Data(contentsOf: url)) }
            var merged = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
            for extra in extras {
                let added: Any
                do {
                    added = try JSONSerialization.jsonObject(with: Data(contentsOf: extra), options: [.fragmentsAllowed])
                } catch {
                    throw ConformanceError("cannot load vectors \(extra.path): \(error)")
                }
                merged = Self.merge(merged, added)
            }
            return try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: merged, options: [.fragmentsAllowed]))
        } catch let error as ConformanceError {
            throw error
        } catch {
            let sources = ([url] + extras).map(\.path).joined(separator: " + ")
            throw ConformanceError("cannot load vectors \(sources): \(error)")
        }
    }

    /// `base` with `added`'s arrays appended to the arrays under the same keys, at any depth.
    static func merge(_ base: Any, _ added: Any) -> Any {
        switch (base, added) {
        case (let base as [Any], let added as [Any]):
            return base + added
        case (let base as [String: Any], let added as [String: Any]):
            var result = base
            for (key, value) in added { result[key] = result[key].map { merge($0, value) } ?? value }
            return result
        default:
            return base
        }
    }
}

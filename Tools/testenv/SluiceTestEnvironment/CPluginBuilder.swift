import Foundation

/// Builds small C plugin libraries with the system's C compiler, for the checks that need a real `.so`
/// answering in a chosen (often hostile) way: the `security.parsers` suite and the tests.
public enum CPluginBuilder {
    /// The includes and the plugin table's layout (ABI version 1) as `table_t`, for C source that
    /// defines `static const table_t table = {...}` and `sluice_plugin_entry` returning it.
    public static let prelude = """
        #include <stddef.h>
        #include <stdint.h>
        #include <stdlib.h>
        #include <string.h>
        typedef struct {
            uint32_t abi_version; const char *name; const char *version;
            const char *const *media_types; size_t media_type_count;
            int32_t (*decode)(const uint8_t *, size_t, const char *, uint8_t **, size_t *, char **);
            int32_t (*encode)(const uint8_t *, size_t, uint8_t **, size_t *, char **);
            void (*free_buffer)(void *);
        } table_t;

        """

    /// Compiles `source` into `lib<name>.so` in a temporary directory of its own; ``discard(_:)`` removes it.
    ///
    /// - Throws: ``ConformanceError`` when no C compiler is found (`cc`, `gcc` or `clang` in `/usr/bin`)
    ///   or the source does not compile.
    public static func compile(_ source: String, name: String) throws -> String {
        guard let compiler = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first(where: FileManager.default.isExecutableFile(atPath:))
        else { throw ConformanceError("no C compiler (cc) to build the plugin \(name); install gcc or clang") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-plugins-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(name).c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let library = directory.appendingPathComponent("lib\(name).so").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-shared", "-fPIC", "-o", library, file.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ConformanceError("\(compiler) could not build the plugin \(name)") }
        return library
    }

    /// Removes the directory ``compile(_:name:)`` made for the library at `path` (a loaded library stays
    /// mapped).
    public static func discard(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }
}

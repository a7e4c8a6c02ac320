import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `Accept-Language` and `User-Agent` values a serializer starts with, read from the system.
enum SystemIdentity {
    /// `Accept-Language` from the POSIX locale variables, as AFNetworking builds it from the preferred
    /// languages: `lang;q=1, lang;q=0.9, …`, q falling by 0.1, at most 6 entries.
    ///
    /// `LANGUAGE` (a colon-separated list) comes first unless the locale is `C` or `POSIX`, then the
    /// first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set. `en_GB.UTF-8@euro` becomes `en-GB`;
    /// `C`, `POSIX` and empty values are skipped; with no language, `en`.
    static func acceptLanguage(environment: [String: String]) -> String {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        var candidates: [String] = []
        let isPOSIX = locale.map { ["C", "POSIX"].contains(tag(from: $0) ?? $0) || $0.hasPrefix("C.") } ?? false
        if let list = environment["LANGUAGE"], !isPOSIX {
            candidates += list.split(separator: ":").map(String.init)
        }
        if let locale { candidates.append(locale) }
        var languages: [String] = []
        for candidate in candidates {
            guard let tag = tag(from: candidate), !languages.contains(tag) else { continue }
            languages.append(tag)
        }
        if languages.isEmpty { languages = ["en"] }
        return languages.prefix(6).enumerated().map { index, language in
            "\(language);q=\(qualityText(10 - index))"
        }.joined(separator: ", ")
    }

    /// `1` for ten tenths, `0.9` for nine, ... as `%0.1g` writes them.
    private static func qualityText(_ tenths: Int) -> String { tenths == 10 ? "1" : "0.\(tenths)" }

    /// `en_GB.UTF-8@euro` → `en-GB`; `nil` for `C`, `POSIX` and text that is not a language tag.
    static func tag(from locale: String) -> String? {
        let base = locale.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        let name = base.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        guard !name.isEmpty, name != "C", name != "POSIX" else { return nil }
        let tag = name.replacingOccurrences(of: "_", with: "-")
        guard tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        return tag
    }

    /// `<application>/<version> (Linux; <distribution>; kernel <release>)`, transliterated to ASCII.
    static func userAgent(application: String?, version: String?) -> String {
        let info = Bundle.main.infoDictionary
        let name = application ?? (info?["CFBundleExecutable"] as? String) ?? ProcessInfo.processInfo.processName
        let version = version ?? (info?["CFBundleShortVersionString"] as? String)
            ?? (info?["CFBundleVersion"] as? String) ?? "unknown"
        var platform = ["Linux"]
        if let distribution = distributionName() { platform.append(distribution) }
        if let kernel = kernelRelease() { platform.append("kernel \(kernel)") }
        return asciiOnly("\(name)/\(version) (\(platform.joined(separator: "; ")))")
    }

    /// `PRETTY_NAME` from `/etc/os-release` (or `/usr/lib/os-release`), else `NAME VERSION_ID`.
    static func distributionName() -> String? {
        for path in ["/etc/os-release", "/usr/lib/os-release"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            var fields: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                var value = String(line[line.index(after: equals)...])
                if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                    value = String(value.dropFirst().dropLast())
                }
                fields[String(line[..<equals])] = value
            }
            if let pretty = fields["PRETTY_NAME"], !pretty.isEmpty { return pretty }
            if let name = fields["NAME"] { return [name, fields["VERSION_ID"]].compactMap { $0 }.joined(separator: " ") }
        }
        return nil
    }

    /// The kernel release from `uname`, for example `6.1.0-27-amd64`.
    static func kernelRelease() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return withUnsafeBytes(of: &names.release) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `text` transliterated to ASCII (`Café` → `Cafe`, other scripts to Latin); what cannot be
    /// transliterated, and control characters, are removed.
    static func asciiOnly(_ text: String) -> String {
        let transliterated = text.applyingTransform(
            StringTransform(rawValue: "Any-Latin; Latin-ASCII; [:^ASCII:] Remove"), reverse: false)
            ?? text.decomposedStringWithCanonicalMapping
        return String(String.UnicodeScalarView(transliterated.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }))
    }
}

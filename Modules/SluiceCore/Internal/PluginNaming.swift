/// The rules for plugin names and versions.
enum PluginNaming {
    /// Non-empty, at most 128 bytes of ASCII letters, digits, `.`, `_` and `-`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
    }

    /// `MAJOR.MINOR.PATCH`, each a number without leading zeros, then optionally `-` and a prerelease
    /// of letters, digits, `.` and `-`.
    static func isValidVersion(_ version: String) -> Bool {
        let parts = version.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let core = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3 else { return false }
        for number in core {
            guard !number.isEmpty, number.allSatisfy(\.isASCIIDigitCharacter),
                number == "0" || !number.hasPrefix("0")
            else { return false }
        }
        if parts.count == 2 {
            let prerelease = parts[1]
            guard !prerelease.isEmpty,
                prerelease.allSatisfy({ $0.isASCIIDigitCharacter || ($0.isASCII && $0.isLetter) || $0 == "." || $0 == "-" })
            else { return false }
        }
        return true
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isWholeNumber }
}

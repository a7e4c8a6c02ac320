import Foundation

/// Maps IANA charset names (as found in `Content-Type`) to `String.Encoding`.
enum TextEncodingNames {
    static func encoding(named name: String) -> String.Encoding? {
        switch name.trimmingCharacters(in: .whitespaces).lowercased() {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii", "ansi_x3.4-1968": .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "l1", "iso_8859-1": .isoLatin1
        case "iso-8859-2", "latin2", "l2": .isoLatin2
        case "windows-1250", "cp1250": .windowsCP1250
        case "windows-1251", "cp1251": .windowsCP1251
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1253", "cp1253": .windowsCP1253
        case "windows-1254", "cp1254": .windowsCP1254
        case "utf-16": .utf16
        case "utf-16be": .utf16BigEndian
        case "utf-16le": .utf16LittleEndian
        case "utf-32": .utf32
        case "utf-32be": .utf32BigEndian
        case "utf-32le": .utf32LittleEndian
        case "shift_jis", "shift-jis", "sjis": .shiftJIS
        case "euc-jp": .japaneseEUC
        case "iso-2022-jp": .iso2022JP
        case "macintosh", "mac": .macOSRoman
        default: nil
        }
    }
}

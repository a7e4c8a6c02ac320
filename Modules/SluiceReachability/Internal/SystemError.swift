#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SluiceCore

/// Builds ``SluiceError`` values for failed system calls.
enum SystemError {
    /// The text `strerror` gives for `code`.
    static func message(for code: Int32) -> String { String(cString: strerror(code)) }

    /// An error with `code`, saying `what` failed, carrying `errno` as a Linux library diagnostic.
    static func make(_ code: SluiceError.Code, _ what: String, errno number: Int32) -> SluiceError {
        let text = message(for: number)
        return SluiceError(
            code, "\(what): \(text)", library: LibraryDiagnostic(library: "Linux", code: Int(number), message: text))
    }
}

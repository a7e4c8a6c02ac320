import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension CookieStore {
    /// Adds the cookies of a Netscape cookie file — the format curl's `-b` reads and `-c` writes — to the store.
    ///
    /// Each line is `domain`, `includeSubdomains` (`TRUE`/`FALSE`), `path`, `secure` (`TRUE`/`FALSE`), `expires`
    /// (seconds since 1970; `0` for a session cookie), `name` and `value`, separated by tabs; `#HttpOnly_` before
    /// the domain marks an `HttpOnly` cookie. Blank lines and other lines starting with `#` are skipped, and so is a
    /// malformed line (a wrong number of fields, a flag that is neither `TRUE` nor `FALSE`, an `expires` that is
    /// not an integer, an empty domain or name, a path not starting with `/`, a control character): one bad line
    /// does not lose the others. Cookies expired at `now` are skipped. The others are stored in file order as
    /// ``set(_:at:)`` stores them, with `now` as their creation and last access time; the file has no `SameSite`,
    /// so every loaded cookie's is ``HTTPCookie/SameSite/unspecified``.
    ///
    /// - Parameters:
    ///   - url: The file's URL.
    ///   - now: The time to judge expiry at. Default: now.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/cookieFileUnreadable`` when the file does not exist or
    ///   cannot be read.
    public func load(from url: URL, at now: Date = Date()) throws(SluiceError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SluiceError(
                .cookieFileUnreadable, "cannot read the cookie file \(url.path)", underlying: ForeignError(error))
        }
        setAll(NetscapeCookieFile.parse(data, now: now), at: now)
    }

    /// Writes the store's cookies to a Netscape cookie file, the format curl's `-b` reads (see
    /// ``load(from:at:)``), replacing the file atomically: the text goes to a new file (mode 0600: cookies are
    /// credentials) in the same folder, which then takes the old file's name, so a reader sees the old file or the
    /// new one, never a part.
    ///
    /// Cookies expired at `now` are left out, and so are cookies a line cannot carry (a tab, CR or LF in a field, an
    /// empty name). `SameSite` has no place in the format and is lost. Cookies are written in the order first
    /// stored, so loading the file keeps the order of cookies with equal paths.
    ///
    /// - Parameters:
    ///   - url: The file's URL.
    ///   - includingSessionCookies: Whether session cookies are written too (with `expires` 0, as curl writes
    ///     them). Default `false`: a session cookie ends with the session.
    ///   - now: The time to judge expiry at. Default: now.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/cookieFileUnwritable`` when the file cannot be written
    ///   or cannot replace the old one; the old file is then untouched.
    public func save(to url: URL, includingSessionCookies: Bool = false, at now: Date = Date()) throws(SluiceError) {
        let cookies = allCookies.filter { !$0.isExpired(at: now) && (includingSessionCookies || !$0.isSessionCookie) }
        try Self.writeAtomically(Array(NetscapeCookieFile.format(cookies).utf8), to: url)
    }

    /// Writes `bytes` to a temporary file beside `url`, flushes it to disk and renames it to `url`.
    private static func writeAtomically(_ bytes: [UInt8], to url: URL) throws(SluiceError) {
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + "." + UUID().uuidString + ".tmp"
        func failure(_ what: String) -> SluiceError {
            let code = errno
            return SluiceError(
                .cookieFileUnwritable, "cannot write the cookie file \(path): \(what)",
                library: LibraryDiagnostic(library: "libc", code: Int(code), message: String(cString: strerror(code))))
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create a temporary file in \(folder)") }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let error = failure("write failed")
                close(descriptor)
                unlink(temporary)
                throw error
            }
            written += result
        }
        if fsync(descriptor) != 0 {
            let error = failure("fsync failed")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        if close(descriptor) != 0 {
            let error = failure("close failed")
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let error = failure("cannot replace the file")
            unlink(temporary)
            throw error
        }
    }
}

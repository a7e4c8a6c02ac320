import SluiceCore

extension SluiceError.Code {
    /// A cookie file could not be opened or read (``CookieStore/load(from:at:)``): it does not exist, it is a
    /// folder, or reading it failed. A malformed line is not this error: it is skipped.
    public static let cookieFileUnreadable: Self = "cookies.fileUnreadable"

    /// A cookie file could not be written (``CookieStore/save(to:includingSessionCookies:at:)``): its folder is
    /// missing or not writable, the disk is full, or the new file could not take the old one's place.
    public static let cookieFileUnwritable: Self = "cookies.fileUnwritable"
}

import CZlib

/// Facts about the zlib library the gzip plugin runs on.
public enum Zlib {
    /// The version of the zlib linked into this process, for example `1.2.13`.
    public static var version: String { String(cString: zlibVersion()) }
}

/// A check ``PluginContract`` derives from the author's own samples, beyond the answers the samples
/// name: what a careful sample set still misses (UTF-16 text, a charset nobody knows, a large body, a
/// body cut short). Each is listed in the report with the media types it ran on; an author switches one
/// off with ``PluginContract/disabledProbes`` and a reason the report prints.
public enum ContractProbe: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Every sample that decodes, of a text type (`text/…`, or a type the sample gives a `charset`): its
    /// text sent as UTF-16 with a byte order mark (`charset=utf-16`) and without one (`charset=utf-16le`,
    /// `charset=utf-16be`) decodes to the same value, or is refused with a ``SluiceError``; never another
    /// value.
    case utf16 = "utf-16"
    /// The same samples with `charset=x-sluice-unknown` are refused with a ``SluiceError``: a plugin must
    /// not read text in a charset it does not know as if it were UTF-8.
    case unknownCharset = "unknown charset"
    /// Every sample that decodes, of a type in ``PluginContract/concatenatingMediaTypes``: the body
    /// repeated until it is over 1 MiB, and twice that, both decode, within the call timeout, and the
    /// second value is about twice the first (a plugin that truncates large bodies gives the same value
    /// twice).
    case repeatedBody = "repeated body"
    /// Every sample that decodes: the body cut at a dozen points is refused with a ``SluiceError`` that
    /// says why, or decodes; within the call timeout.
    case truncatedBody = "truncated body"

    /// The probe's name in rules.
    public var description: String { rawValue }
}

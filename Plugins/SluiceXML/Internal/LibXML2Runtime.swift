import CLibXML2

/// The process-wide libxml2 setup Sluice relies on, done once, and the options of every parse.
enum LibXML2Runtime {
    /// `xmlInitParser()`, run once before the first parse (libxml2's global tables are set up then, so
    /// parses on many threads at once do not race to set them up).
    static let ready: Void = {
        xmlCheckVersion(LIBXML_VERSION)
        xmlInitParser()
    }()

    /// No network (`XML_PARSE_NONET`), compact text nodes; never `NOENT`, `DTDLOAD`, `DTDATTR`,
    /// `DTDVALID`, `HUGE` or `RECOVER`. Entity declarations are refused by the SAX handlers
    /// (``ParseState``), so nothing is expanded or loaded whatever the options.
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// A Swift string from a NUL-terminated libxml2 string (`""` for `NULL`).
    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    /// A Swift string from a NUL-terminated libxml2 string, or `nil` for `NULL`.
    static func optionalString(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

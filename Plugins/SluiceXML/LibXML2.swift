import CLibXML2

/// Facts about the libxml2 library the XML plugin runs on.
public enum LibXML2 {
    /// The version of the libxml2 linked into this process as libxml2 writes it, for example `20914`
    /// for 2.9.14.
    public static var version: String {
        xmlCheckVersion(LIBXML_VERSION)
        return sluice_xml_version().map { String(cString: $0) } ?? "unknown"
    }
}

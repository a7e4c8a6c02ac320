import SluiceCore

extension SluiceError.Code {
    /// A document is not well-formed XML: an unclosed or mismatched tag, a truncated or empty document,
    /// bytes that are not in its encoding, more depth than libxml2 allows (256 levels). The line and
    /// column are in ``SluiceError/xmlDiagnostic``.
    public static let xmlMalformed: Self = "xml.malformed"
    /// A document declares an entity in its DTD (general, parameter or unparsed: the form of
    /// billion-laughs and external-entity attacks) or refers to an entity that is not one of XML's five
    /// predefined ones. Nothing is expanded or loaded; the line and column are in
    /// ``SluiceError/xmlDiagnostic``.
    public static let xmlEntityRefused: Self = "xml.entityRefused"
    /// An XPath expression does not compile or cannot be evaluated: a syntax error, an unknown function,
    /// or a prefix not given in the query's namespaces.
    public static let xmlXPathInvalid: Self = "xml.xpathInvalid"
}

extension SluiceError {
    /// Where libxml2 stopped, for ``Code/xmlMalformed`` and ``Code/xmlEntityRefused`` errors; `nil`
    /// for other errors.
    public var xmlDiagnostic: XMLDiagnostic? { underlying as? XMLDiagnostic }
}

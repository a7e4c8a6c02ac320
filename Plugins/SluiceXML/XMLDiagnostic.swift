/// Where and why libxml2 stopped on a document: the line and column of the problem, libxml2's error
/// code (an `xmlParserErrors` value) and its message.
///
/// Carried as the ``SluiceError/underlying`` error of ``SluiceError/Code/xmlMalformed``
/// and ``SluiceError/Code/xmlEntityRefused`` errors; read it with
/// ``SluiceError/xmlDiagnostic``.
public struct XMLDiagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line of the problem, from 1.
    public let line: Int
    /// The column of the problem, from 1; libxml2 counts bytes of the line read so far.
    public let column: Int
    /// libxml2's error code (`xmlParserErrors`), or 0 when the refusal is Sluice's own.
    public let code: Int
    /// libxml2's message, or Sluice's for its own refusals.
    public let message: String

    /// Creates a diagnostic.
    public init(line: Int, column: Int, code: Int, message: String) {
        self.line = line
        self.column = column
        self.code = code
        self.message = message
    }

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}

import SluiceCore

/// Writes a query string in one pass into one buffer, with the same rules as
/// `QueryStringSerialization.pairs(from:options:)`.
///
/// Escaping works byte by byte, so the escaped field of a nested value is the escaped field of its
/// parent followed by the escaped brackets and key: the writer keeps that escaped prefix and grows
/// and shrinks it while it walks the tree, instead of building and escaping a field string per pair.
struct QueryStringWriter {
    let options: QueryStringSerialization.Options
    private(set) var output: [UInt8] = []
    private var prefix: [UInt8] = []
    /// Whether a pair was written: the next one follows an `&`, even when the pairs so far wrote no
    /// byte (a bare empty field).
    private var wrotePair = false

    private static let openBracket = Array("%5B".utf8)
    private static let closeBracket = Array("%5D".utf8)

    init(options: QueryStringSerialization.Options) {
        self.options = options
        output.reserveCapacity(4096)
        prefix.reserveCapacity(256)
    }

    mutating func write(_ value: Parameters, hasKey: Bool) {
        switch value {
        case .dictionary(let dictionary):
            let keys = options.keyOrdering == .alphabetized ? dictionary.keys.sorted() : Array(dictionary.keys)
            for key in keys {
                let mark = prefix.count
                if hasKey { prefix += Self.openBracket }
                QueryStringSerialization.appendEscaped(
                    options.keyEncoding.apply(to: key), spaces: options.spaceEncoding, to: &prefix)
                if hasKey { prefix += Self.closeBracket }
                write(dictionary[key]!, hasKey: true)
                prefix.removeSubrange(mark...)
            }
        case .array(let array):
            for (index, element) in array.enumerated() {
                let mark = prefix.count
                switch options.arrayEncoding {
                case .brackets:
                    prefix += Self.openBracket
                    prefix += Self.closeBracket
                case .noBrackets:
                    break
                case .indexInBrackets:
                    prefix += Self.openBracket
                    prefix += Array(String(index).utf8)
                    prefix += Self.closeBracket
                case .custom:
                    preconditionFailure("custom array keys are written through pairs(from:options:)")
                }
                write(element, hasKey: true)
                prefix.removeSubrange(mark...)
            }
        case .set(let set):
            let sorted = set.map { (sortKey: QueryStringSerialization.scalarText($0, options: options) ?? $0.description, value: $0) }
                .sorted { $0.sortKey < $1.sortKey }
            for element in sorted { write(element.value, hasKey: hasKey) }
        case .null:
            guard hasKey else { return }
            switch options.nilEncoding {
            case .bareKey: emit(value: nil)
            case .dropKey: break
            case .dropValue: emit(value: "")
            case .null: emit(value: "null")
            }
        default:
            guard hasKey else { return }
            emit(value: QueryStringSerialization.scalarText(value, options: options))
        }
    }

    private mutating func emit(value: String?) {
        if wrotePair { output.append(UInt8(ascii: "&")) }
        wrotePair = true
        output += prefix
        guard let value else { return }
        output.append(UInt8(ascii: "="))
        QueryStringSerialization.appendEscaped(value, spaces: options.spaceEncoding, to: &output)
    }
}

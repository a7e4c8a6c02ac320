import SluiceCore

extension SluiceError.Code {
    /// A value cannot be written as a property list: null, a set, a non-finite number, or data that
    /// Foundation refuses.
    public static let propertyListInvalidValue: Self = "plist.invalidValue"
    /// A body is not a property list (XML, binary or OpenStep).
    public static let propertyListInvalidData: Self = "plist.invalidData"
    /// Parameters of a method that puts them in the query, with no serializer given for queries.
    public static let propertyListParametersInURI: Self = "plist.parametersInURI"
}

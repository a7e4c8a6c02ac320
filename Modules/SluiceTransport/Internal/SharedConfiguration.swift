/// A session's configuration, shared by reference among its transfers: a transfer then carries one
/// pointer instead of its own copy of the whole value (which also kept each transfer object out of the
/// allocator's fast size classes).
final class SharedConfiguration: Sendable {
    let value: SessionConfiguration

    init(_ value: SessionConfiguration) { self.value = value }
}

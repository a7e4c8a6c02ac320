/// An evaluator kept inside a ``TLSConfiguration``, compared and hashed through its own `Hashable`
/// conformance, so the configuration stays `Hashable`.
struct ServerTrustEvaluatorBox: Sendable, Hashable {
    let base: any ServerTrustEvaluator

    static func == (lhs: Self, rhs: Self) -> Bool { AnyHashable(lhs.base) == AnyHashable(rhs.base) }

    func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }
}

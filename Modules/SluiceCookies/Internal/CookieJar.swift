import Foundation

/// The cookies of a ``CookieStore`` and its rules, as a value with no lock and no I/O: RFC 6265 §5.3's
/// replacement (step 11) and eviction, and §5.4's selection and order.
struct CookieJar: Sendable {
    /// A stored cookie and the order it was first stored in (the tie-breaker after creation time).
    struct Entry: Sendable {
        var cookie: HTTPCookie
        var sequence: UInt64
    }

    /// The most cookies kept for one registrable domain.
    let maximumPerDomain: Int
    /// The most cookies kept in all.
    let maximumTotal: Int

    /// The cookies, by their ``HTTPCookie/domain``.
    private(set) var byDomain: [String: [Entry]] = [:]
    /// How many cookies there are.
    private(set) var count = 0
    /// How many cookies each registrable domain has.
    private var groupCounts: [String: Int] = [:]
    /// The registrable domain of each key of ``byDomain``.
    private var groups: [String: String] = [:]
    private var nextSequence: UInt64 = 0

    init(maximumPerDomain: Int, maximumTotal: Int) {
        self.maximumPerDomain = max(1, maximumPerDomain)
        self.maximumTotal = max(1, maximumTotal)
    }

    /// Every cookie, in the order they were first stored.
    var all: [HTTPCookie] {
        byDomain.values.joined().sorted { Self.storedBefore($0, $1) }.map(\.cookie)
    }

    /// Earlier creation first, then earlier first storing.
    static func storedBefore(_ lhs: Entry, _ rhs: Entry) -> Bool {
        (lhs.cookie.creation, lhs.sequence) < (rhs.cookie.creation, rhs.sequence)
    }

    /// §5.3 steps 11-12 and the eviction that follows: `cookie` replaces the cookie with its name, domain and
    /// path (keeping that one's creation time); an expired cookie only removes it. Then, when a limit is passed,
    /// expired cookies go first and then those with the oldest last access, never `cookie` itself.
    ///
    /// - Returns: The cookie as stored (with the creation time it kept), or `nil` when it was expired.
    @discardableResult
    mutating func store(_ cookie: HTTPCookie, now: Date) -> HTTPCookie? {
        var cookie = cookie
        var entries = byDomain[cookie.domain] ?? []
        var sequence = nextSequence
        if let index = entries.firstIndex(where: { Self.sameSlot($0.cookie, cookie) }) {
            cookie.creation = entries[index].cookie.creation
            sequence = entries[index].sequence
            entries.remove(at: index)
            setEntries(entries, for: cookie.domain)
        } else {
            nextSequence += 1
        }
        guard !cookie.isExpired(at: now) else { return nil }
        entries.append(Entry(cookie: cookie, sequence: sequence))
        setEntries(entries, for: cookie.domain)
        evict(keeping: cookie, now: now)
        return cookie
    }

    /// Replaces the cookies of `domain`, keeping the counts right (an empty list removes the domain).
    private mutating func setEntries(_ entries: [Entry], for domain: String) {
        let before = byDomain[domain]?.count ?? 0
        let group: String
        if let known = groups[domain] {
            group = known
        } else {
            group = PublicSuffixList.registrableDomain(of: domain)
            groups[domain] = group
        }
        let groupCount = (groupCounts[group] ?? 0) + entries.count - before
        groupCounts[group] = groupCount > 0 ? groupCount : nil
        count += entries.count - before
        byDomain[domain] = entries.isEmpty ? nil : entries
        if entries.isEmpty { groups[domain] = nil }
    }

    /// Whether two cookies take the same place in the store: same name, domain and path, byte for byte.
    static func sameSlot(_ lhs: HTTPCookie, _ rhs: HTTPCookie) -> Bool {
        lhs.name.utf8.elementsEqual(rhs.name.utf8) && lhs.domain.utf8.elementsEqual(rhs.domain.utf8)
            && lhs.path.utf8.elementsEqual(rhs.path.utf8)
    }

    /// RFC 6265bis §5.7 step 16: whether a cookie that is not `Secure`, from a connection that is not secure,
    /// would overlay a `Secure` cookie: same name, domains that domain-match either way, and the new path
    /// path-matching the old one's.
    func overlaysSecureCookie(_ cookie: HTTPCookie) -> Bool {
        byDomain.values.joined().contains { entry in
            let old = entry.cookie
            return old.secure && old.name.utf8.elementsEqual(cookie.name.utf8)
                && (CookieMatching.domainMatches(old.domain, cookie.domain)
                    || CookieMatching.domainMatches(cookie.domain, old.domain))
                && CookieMatching.pathMatches(cookie.path, old.path)
        }
    }

    /// Removes the cookie with this name, domain (canonicalized) and path.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    mutating func remove(name: String, domain: String, path: String) -> Bool {
        let domain = HTTPCookie.canonicalDomain(domain)
        guard var entries = byDomain[domain],
            let index = entries.firstIndex(where: {
                $0.cookie.name.utf8.elementsEqual(name.utf8) && $0.cookie.domain.utf8.elementsEqual(domain.utf8)
                    && $0.cookie.path.utf8.elementsEqual(path.utf8)
            })
        else { return false }
        entries.remove(at: index)
        setEntries(entries, for: domain)
        return true
    }

    /// Removes every cookie.
    mutating func removeAll() {
        byDomain = [:]
        groupCounts = [:]
        groups = [:]
        count = 0
    }

    /// Removes the cookies expired at `now`.
    ///
    /// - Returns: How many there were.
    @discardableResult
    mutating func removeExpired(at now: Date) -> Int {
        let before = count
        for (domain, entries) in byDomain {
            let kept = entries.filter { !$0.cookie.isExpired(at: now) }
            guard kept.count != entries.count else { continue }
            setEntries(kept, for: domain)
        }
        return before - count
    }

    /// The unexpired cookies whose domain is `domain` (canonicalized), longest path first.
    func cookies(forDomain domain: String, at now: Date) -> [HTTPCookie] {
        let domain = HTTPCookie.canonicalDomain(domain)
        return (byDomain[domain] ?? []).filter { !$0.cookie.isExpired(at: now) && $0.cookie.domain.utf8.elementsEqual(domain.utf8) }
            .sorted(by: Self.sendsBefore).map(\.cookie)
    }

    /// §5.4 step 1-2: the cookies to send with `request` at `now`, in sending order; with `touch`, their last
    /// access becomes `now`. Expired cookies met on the way are removed.
    mutating func select(for request: CookieRequest, now: Date, touch: Bool) -> [HTTPCookie] {
        var selected: [(domain: String, index: Int, entry: Entry)] = []
        for domain in CookieMatching.candidateDomains(of: request.host) {
            guard var entries = byDomain[domain] else { continue }
            let before = entries.count
            entries.removeAll { $0.cookie.isExpired(at: now) }
            if entries.count != before { setEntries(entries, for: domain) }
            for (index, entry) in entries.enumerated() where Self.sends(entry.cookie, to: request) {
                selected.append((domain, index, entry))
            }
        }
        selected.sort { Self.sendsBefore($0.entry, $1.entry) }
        if touch {
            for item in selected { byDomain[item.domain]![item.index].cookie.lastAccess = now }
        }
        return selected.map { item in
            var cookie = item.entry.cookie
            if touch { cookie.lastAccess = now }
            return cookie
        }
    }

    /// §5.4 step 1: whether `cookie` goes with `request` (its domain, path and scheme; its expiry is checked
    /// before).
    static func sends(_ cookie: HTTPCookie, to request: CookieRequest) -> Bool {
        if cookie.hostOnly {
            guard cookie.domain.utf8.elementsEqual(request.host.utf8) else { return false }
        } else {
            guard CookieMatching.domainMatches(request.host, cookie.domain) else { return false }
        }
        let path = request.path.isEmpty ? "/" : request.path
        guard CookieMatching.pathMatches(path, cookie.path) else { return false }
        return !cookie.secure || request.isSecure
    }

    /// §5.4 step 2: longer paths first, then earlier creation times, then the order first stored in.
    static func sendsBefore(_ lhs: Entry, _ rhs: Entry) -> Bool {
        let lhsLength = lhs.cookie.path.utf8.count, rhsLength = rhs.cookie.path.utf8.count
        if lhsLength != rhsLength { return lhsLength > rhsLength }
        return storedBefore(lhs, rhs)
    }

    // MARK: - Eviction

    /// Applies the limits after `kept` was stored: expired cookies go first, then the cookies with the oldest
    /// last access (of `kept`'s registrable domain for the per-domain limit, of all for the total).
    private mutating func evict(keeping kept: HTTPCookie, now: Date) {
        guard let group = groups[kept.domain] else { return }
        guard (groupCounts[group] ?? 0) > maximumPerDomain || count > maximumTotal else { return }
        removeExpired(at: now)
        let groupDomains = groups.filter { $0.value == group }.map(\.key)
        while (groupCounts[group] ?? 0) > maximumPerDomain, evictLeastRecentlyUsed(among: groupDomains, keeping: kept) {}
        while count > maximumTotal, evictLeastRecentlyUsed(among: Array(byDomain.keys), keeping: kept) {}
    }

    /// Removes the cookie with the oldest last access (then the earliest stored) among `domains`, other than
    /// `kept`.
    ///
    /// - Returns: Whether one was removed.
    private mutating func evictLeastRecentlyUsed(among domains: [String], keeping kept: HTTPCookie) -> Bool {
        var oldest: (domain: String, index: Int, entry: Entry)?
        for domain in domains {
            for (index, entry) in (byDomain[domain] ?? []).enumerated() where !Self.sameSlot(entry.cookie, kept) {
                if let current = oldest,
                    (current.entry.cookie.lastAccess, current.entry.sequence) <= (entry.cookie.lastAccess, entry.sequence)
                {
                    continue
                }
                oldest = (domain, index, entry)
            }
        }
        guard let oldest else { return false }
        var entries = byDomain[oldest.domain] ?? []
        entries.remove(at: oldest.index)
        setEntries(entries, for: oldest.domain)
        return true
    }
}

/// A set of property positions (`EntityLayout`), as bits: which properties of an object
/// changed. Every property set inserts into two of these, so an insert is a shift and an
/// `or`, where a `Set<Int>` hashed each position.
struct PropertyIndexSet: Sequence, Equatable {
    /// Positions 0–63.
    private var low: UInt64 = 0
    /// Positions from 64 on, 64 to a word; empty for most entities.
    private var high: [UInt64] = []

    init() {}

    init<S: Sequence<Int>>(_ indexes: S) {
        for index in indexes { insert(index) }
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        if index < 64 { return low & (1 << UInt64(index)) != 0 }
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(index % 64)) != 0
    }

    mutating func insert(_ index: Int) {
        guard index >= 0 else { return }
        if index < 64 {
            low |= 1 << UInt64(index)
            return
        }
        let word = index / 64 - 1
        if word >= high.count { high += Array(repeating: 0, count: word - high.count + 1) }
        high[word] |= 1 << UInt64(index % 64)
    }

    mutating func removeAll() {
        low = 0
        high = []
    }

    static func == (lhs: PropertyIndexSet, rhs: PropertyIndexSet) -> Bool {
        guard lhs.low == rhs.low else { return false }
        let count = Swift.max(lhs.high.count, rhs.high.count)
        return (0..<count).allSatisfy { word in
            (word < lhs.high.count ? lhs.high[word] : 0) == (word < rhs.high.count ? rhs.high[word] : 0)
        }
    }

    /// The positions in ascending order.
    func makeIterator() -> Iterator { Iterator(words: [low] + high) }

    struct Iterator: IteratorProtocol {
        let words: [UInt64]
        var word = 0
        var remaining: UInt64

        init(words: [UInt64]) {
            self.words = words
            remaining = words.first ?? 0
        }

        mutating func next() -> Int? {
            while remaining == 0 {
                word += 1
                guard word < words.count else { return nil }
                remaining = words[word]
            }
            let bit = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return word * 64 + bit
        }
    }
}

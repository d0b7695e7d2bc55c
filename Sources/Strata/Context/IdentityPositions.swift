/// Integers keyed by object identity, in an open-addressing table with linear probing. An
/// object's address is its own key: hashing it is one multiplication (Fibonacci hashing), where
/// `Dictionary<ObjectIdentifier, Int>` runs SipHash on every lookup. `ObjectSet` asks at every
/// insert, change and delete of an object, several times (one set per kind of change), and
/// `ToManyMembers` at every link of a big relationship.
///
/// Keys must stay alive while they are in the table (`ObjectSet` holds its members), so that
/// an address is never reused for another object meanwhile.
struct IdentityPositions {
    /// Slot markers: no real object lives at address 0 or 1.
    private static let empty: UInt = 0
    private static let removed: UInt = 1

    private var keys: [UInt] = []
    private var values: [Int] = []
    /// Slots holding a key or a removal marker: probing stops only at empty slots.
    private var used = 0
    private var shift: UInt = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding the key, if it is in the table.
    private func slot(of object: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let key = UInt(bitPattern: object)
        let mask = keys.count - 1
        var slot = home(of: key)
        while true {
            let current = keys[slot]
            if current == key { return slot }
            if current == Self.empty { return nil }
            slot = (slot + 1) & mask
        }
    }

    subscript(_ object: ObjectIdentifier) -> Int? {
        slot(of: object).map { values[$0] }
    }

    /// Adds the key with its value; `false` (and no change) when the key is there already.
    @discardableResult
    mutating func insert(_ object: ObjectIdentifier, _ value: Int) -> Bool {
        if (used + 1) * 2 > keys.count { rehash(minimumCapacity: (count + 1) * 4) }
        let key = UInt(bitPattern: object)
        let mask = keys.count - 1
        var slot = home(of: key)
        var reusable: Int?
        while true {
            let current = keys[slot]
            if current == key { return false }
            if current == Self.empty { break }
            if current == Self.removed, reusable == nil { reusable = slot }
            slot = (slot + 1) & mask
        }
        if let reusable {
            slot = reusable
        } else {
            used += 1
        }
        keys[slot] = key
        values[slot] = value
        count += 1
        return true
    }

    /// Sets the value of a key the table holds (nothing when it holds no such key).
    mutating func update(_ object: ObjectIdentifier, _ value: Int) {
        guard let slot = slot(of: object) else { return }
        values[slot] = value
    }

    /// Removes the key; its value, or `nil` when it was not there.
    @discardableResult
    mutating func removeValue(forKey object: ObjectIdentifier) -> Int? {
        guard let slot = slot(of: object) else { return nil }
        keys[slot] = Self.removed
        count -= 1
        return values[slot]
    }

    mutating func removeAll() {
        self = IdentityPositions()
    }

    /// A table of at least `minimumCapacity` slots (a power of two) with the live entries.
    private mutating func rehash(minimumCapacity: Int) {
        var bits = 4
        while 1 << bits < minimumCapacity { bits += 1 }
        let oldKeys = keys
        let oldValues = values
        keys = [UInt](repeating: Self.empty, count: 1 << bits)
        values = [Int](repeating: 0, count: 1 << bits)
        shift = UInt(UInt.bitWidth - bits)
        used = 0
        count = 0
        for (key, value) in zip(oldKeys, oldValues) where key != Self.empty && key != Self.removed {
            var slot = home(of: key)
            while keys[slot] != Self.empty { slot = (slot + 1) & (keys.count - 1) }
            keys[slot] = key
            values[slot] = value
            used += 1
            count += 1
        }
    }
}

import Foundation

/// The `NSMutableDictionary` a batch insert's dictionary handler fills, one row at a time.
///
/// It is a dictionary like any other to the handler (set, read, remove, count, enumerate), but
/// it keeps a value set for an attribute under the attribute's name in the row being built,
/// in the attribute's stored form, instead of bridging key and value to objects and hashing
/// them: Foundation's own dictionary spends several times the cost of SQLite's insert on that
/// (B2). A value that is not exactly of the attribute's stored type, and any other key, is kept
/// aside as given and checked with the rest of the row by `BatchRowBuilder`, so that errors
/// are the same as for rows given as dictionaries.
///
/// The handler is given an empty dictionary for each row (see DEVIATIONS.md): an attribute it
/// does not set takes the model's default, never the previous row's value. The same instance
/// serves the next row when the handler kept no reference to it, and is emptied in place, in
/// the row's own storage (the store is done with the previous row by then, so the storage is
/// not copied): the values the last row set stay in the storage, unseen (nothing reads a
/// position that is not marked as set), and only those the new row does not set again go back
/// to their defaults when the row is handed on. A handler sets the same keys row after row, so
/// most rows reset nothing.
final class BatchRowDictionary: NSMutableDictionary {
    private var builder: BatchRowBuilder?
    private var layout: EntityLayout?
    /// The values each row starts from (the builder's template, kept apart from the builder so
    /// that reading it copies no struct).
    private var template = ValueRow(untypedCount: 0)
    /// For each position, the type word of the values stored as they are: the attribute's
    /// stored type for an attribute a batch insert sets, 1 (no type's word) for the others.
    private var fastTypeWords: [UInt] = []
    /// Reads string keys without a cast.
    private let keys = HashableStrings.shared
    // The properties below are only ever reached from this class's own methods, one at a time,
    // on the thread running the request; checking exclusive access at run time (the default
    // for class properties) was a sixth of setting a value (B2).
    /// The row so far: defaults, then the values set under attribute names.
    @exclusivity(unchecked) private var values = ValueRow(untypedCount: 0)
    /// Whether a position's value was set (by the handler) rather than defaulted.
    @exclusivity(unchecked) private var isGiven: [Bool] = []
    /// Positions set, in the order they were first set.
    @exclusivity(unchecked) private var givenOrder: [Int] = []
    /// Positions the previous row set, whose values are still in `values` until `row()` puts
    /// the defaults back where this row did not set them again.
    @exclusivity(unchecked) private var stale: [Int] = []
    /// The positions set, in layout order, for the row handed on (kept to reuse its buffer).
    @exclusivity(unchecked) private var sortedGiven: [Int] = []
    /// Keys and values kept as given: unknown keys, relationships, values to convert.
    @exclusivity(unchecked) private var others: [AnyHashable: Any] = [:]

    /// A dictionary for rows of the builder's entity, empty.
    static func make(for builder: BatchRowBuilder) -> BatchRowDictionary {
        let dictionary = BatchRowDictionary()
        dictionary.builder = builder
        let layout = builder.entity.layout
        dictionary.layout = layout
        dictionary.template = builder.template
        dictionary.values = builder.template
        dictionary.fastTypeWords = layout.storedTypes.indices.map { index in
            guard builder.isInsertable[index], let type = layout.storedTypes[index] else { return 1 }
            return UInt(bitPattern: type)
        }
        dictionary.isGiven = Array(repeating: false, count: layout.properties.count)
        return dictionary
    }

    /// Empties the dictionary for the next row (the values set stay behind as `stale`).
    func clear() {
        for index in givenOrder { isGiven[index] = false }
        stale.append(contentsOf: givenOrder)
        givenOrder.removeAll(keepingCapacity: true)
        if !others.isEmpty { others.removeAll() }
    }

    /// The row the handler described, checked against the model.
    func row() throws -> BatchRow? {
        guard let builder else { return nil }
        for index in stale where !isGiven[index] { values[index] = template[index] }
        stale.removeAll(keepingCapacity: true)
        guard others.isEmpty else { return try builder.row(values: values, given: givenOrder, others: others) }
        sortedGiven.removeAll(keepingCapacity: true)
        for index in isGiven.indices where isGiven[index] { sortedGiven.append(index) }
        return try builder.row(values: values, sortedGiven: sortedGiven)
    }

    /// The position of a key that names an attribute a batch insert sets, whose values of
    /// exactly the value's type are stored as they are; `nil` sends the key the slow way.
    @inline(__always)
    private func fastPosition(of key: AnyHashable, value: Any) -> Int? {
        guard let index = position(of: key), fastTypeWords[index] == PlainValues.typeWord(of: value) else { return nil }
        return index
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        if let index = fastPosition(of: aKey, value: anObject) {
            values.setPresent(anObject, at: index)
            if !isGiven[index] {
                isGiven[index] = true
                givenOrder.append(index)
            }
            // The same key may have been kept aside before with a value of another type.
            if !others.isEmpty, let layout { others[AnyHashable(layout.name(at: index))] = nil }
            return
        }
        unset(aKey)
        others[Self.normalized(aKey)] = anObject
    }

    override func removeObject(forKey aKey: Any) {
        guard let key = aKey as? AnyHashable else { return }
        unset(key)
        others[Self.normalized(key)] = nil
    }

    /// A key as kept aside: a string key as a Swift string, whichever form it was given in, so
    /// that `"name"` and `"name" as NSString` are one key.
    private static func normalized(_ key: AnyHashable) -> AnyHashable {
        guard HashableStrings.shared.string(in: key) == nil, let name = key.base as? String else { return key }
        return AnyHashable(name)
    }

    /// The position of a property named by a string key (a Swift string, read in place, or
    /// an `NSString`).
    @inline(__always)
    private func position(of key: AnyHashable) -> Int? {
        guard let layout, let name = keys.string(in: key) ?? key.base as? String else { return nil }
        return layout.index(of: name)
    }

    /// Takes a key's value out of the row (back to the default).
    private func unset(_ key: AnyHashable) {
        guard let index = position(of: key), isGiven[index] else { return }
        isGiven[index] = false
        givenOrder.removeAll { $0 == index }
        values[index] = template[index]
    }

    override var count: Int { givenOrder.count + others.count }

    override func object(forKey aKey: Any) -> Any? {
        guard let key = aKey as? AnyHashable else { return nil }
        if !others.isEmpty, let value = others[Self.normalized(key)] { return value }
        guard let index = position(of: key), isGiven[index] else { return nil }
        return values[index] ?? NSNull()
    }

    override func keyEnumerator() -> NSEnumerator {
        let names: [Any] = givenOrder.compactMap { layout?.properties[$0].name }
        return NSArray(array: names + others.keys.map(\.base)).objectEnumerator()
    }

    override func removeAllObjects() { clear() }
}

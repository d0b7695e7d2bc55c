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
/// One instance serves a whole request and is emptied before each call of the handler.
final class BatchRowDictionary: NSMutableDictionary {
    private var builder: BatchRowBuilder?
    private var layout: EntityLayout?
    /// The row so far: defaults, then the values set under attribute names.
    private var values = ValueRow(untypedCount: 0)
    /// Whether a position's value was set (by the handler) rather than defaulted.
    private var isGiven: [Bool] = []
    /// Positions set, in the order they were first set.
    private var givenOrder: [Int] = []
    /// Keys and values kept as given: unknown keys, relationships, values to convert.
    private var others: [AnyHashable: Any] = [:]

    /// A dictionary for rows of the builder's entity.
    static func make(for builder: BatchRowBuilder) -> BatchRowDictionary {
        let dictionary = BatchRowDictionary()
        dictionary.builder = builder
        dictionary.layout = builder.entity.layout
        dictionary.isGiven = Array(repeating: false, count: builder.entity.layout.properties.count)
        dictionary.clear()
        return dictionary
    }

    /// Empties the dictionary for the next row.
    func clear() {
        guard let builder else { return }
        values = builder.template
        for index in givenOrder { isGiven[index] = false }
        givenOrder.removeAll(keepingCapacity: true)
        if !others.isEmpty { others.removeAll() }
    }

    /// The row the handler described, checked against the model.
    func row() throws -> BatchRow? {
        guard let builder else { return nil }
        return try builder.row(values: values, given: givenOrder, others: others)
    }

    /// The position of a key that names an attribute a batch insert sets, whose values of
    /// exactly `type` are stored as they are.
    @inline(__always)
    private func fastPosition(of key: AnyHashable, valueType: Any.Type) -> Int? {
        guard let layout, let name = key.base as? String, let index = layout.index(of: name),
            let builder, builder.isInsertable[index], layout.storedTypes[index] == ObjectIdentifier(valueType)
        else { return nil }
        return index
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        if let index = fastPosition(of: aKey, valueType: type(of: anObject)) {
            values[index] = anObject
            if !isGiven[index] {
                isGiven[index] = true
                givenOrder.append(index)
            }
            // The same key may have been kept aside before with a value of another type.
            if !others.isEmpty { others[aKey] = nil }
            return
        }
        unset(aKey)
        others[aKey] = anObject
    }

    override func removeObject(forKey aKey: Any) {
        guard let key = aKey as? AnyHashable else { return }
        unset(key)
        others[key] = nil
    }

    /// Takes a key's value out of the row (back to the default).
    private func unset(_ key: AnyHashable) {
        guard let layout, let builder, let name = key.base as? String, let index = layout.index(of: name),
            isGiven[index]
        else { return }
        isGiven[index] = false
        givenOrder.removeAll { $0 == index }
        values[index] = builder.template[index]
    }

    override var count: Int { givenOrder.count + others.count }

    override func object(forKey aKey: Any) -> Any? {
        guard let key = aKey as? AnyHashable else { return nil }
        if let value = others[key] { return value }
        guard let layout, let name = key.base as? String, let index = layout.index(of: name), isGiven[index] else {
            return nil
        }
        return values[index] ?? NSNull()
    }

    override func keyEnumerator() -> NSEnumerator {
        let names: [Any] = givenOrder.compactMap { layout?.properties[$0].name }
        return NSArray(array: names + others.keys.map(\.base)).objectEnumerator()
    }

    override func removeAllObjects() { clear() }
}

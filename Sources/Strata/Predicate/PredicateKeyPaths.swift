import Foundation

/// Key paths read the way key-value coding reads them for predicates, without Objective-C:
/// managed objects (and anything else `PredicateKeyValueReading`) by
/// `predicateValue(forKey:)`, dictionaries by key, other values by the keys key-value coding
/// gives them (`PredicateFoundationKeys`).
///
/// A path walks component by component. Through a to-one value it keeps going; through a
/// collection it reads the rest from every element and flattens the results into one array
/// with nils dropped (`tags.name` is the names of the tags, `posts.tags` every post's tags),
/// which is what `ANY`, `ALL`, `IN` and the collection operators need. A `@` component is a
/// collection operator that takes the rest of the path as its right-hand key path
/// (`items.@sum.price`, `@sum.items.price`, `tags.@count`).
enum PredicateKeyPaths {
    static func value(atPath path: String, of object: Any?) -> Any? {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return walk(components[...], from: object)
    }

    static func walk(_ components: ArraySlice<String>, from start: Any?) -> Any? {
        var current = PredicateValues.normalize(start)
        var index = components.startIndex
        while index < components.endIndex {
            let key = components[index]
            index += 1
            if key.hasPrefix("@") {
                return collectionOperator(key, rest: components[index...], on: current)
            }
            current = step(key, from: current)
        }
        return current
    }

    /// One component: read from the value, or from each element of a collection, flattened.
    private static func step(_ key: String, from value: Any?) -> Any? {
        guard let elements = PredicateValues.elements(value) else { return self.value(forKey: key, of: value) }
        var result: [Any] = []
        for element in elements {
            let read = self.value(forKey: key, of: element)
            if let inner = PredicateValues.elements(read) {
                result.append(contentsOf: inner.compactMap { $0 })
            } else if let read {
                result.append(read)
            }
        }
        return result
    }

    /// The value of one key of one object; nil for unknown keys and for values that cannot
    /// be read by key.
    static func value(forKey key: String, of object: Any?) -> Any? {
        guard let object = PredicateValues.normalize(object) else { return nil }
        let isSelf = key == "self" || key == "SELF"
        if let reader = object as? PredicateKeyValueReading {
            return PredicateValues.normalize(reader.predicateValue(forKey: key)) ?? (isSelf ? object : nil)
        }
        if let dictionary = PredicateValues.dictionary(object) {
            return PredicateValues.normalize(dictionary[key]) ?? (isSelf ? object : nil)
        }
        if isSelf { return object }
        return PredicateValues.normalize(PredicateFoundationKeys.value(forKey: key, of: object))
    }

    // MARK: Collection operators

    private static func collectionOperator(_ name: String, rest: ArraySlice<String>, on value: Any?) -> Any? {
        switch name {
        case "@count":
            // As in KVC, `@count` of a collection ignores a right-hand key path.
            if let elements = PredicateValues.elements(value) { return Int64(elements.count) }
            if let dictionary = PredicateValues.dictionary(value) { return Int64(dictionary.count) }
            guard !rest.isEmpty, let elements = PredicateValues.elements(walk(rest, from: value)) else { return nil }
            return Int64(elements.count)
        case "@sum":
            return operands(rest, of: value, flattening: true).flatMap(PredicateAggregates.sum)
        case "@avg":
            return operands(rest, of: value, flattening: true).flatMap(PredicateAggregates.average)
        case "@min":
            let values = operands(rest, of: value, flattening: true)
            return values.flatMap { PredicateAggregates.extreme($0, .orderedAscending) }
        case "@max":
            let values = operands(rest, of: value, flattening: true)
            return values.flatMap { PredicateAggregates.extreme($0, .orderedDescending) }
        case "@unionOfObjects":
            return operands(rest, of: value, flattening: false)
        case "@distinctUnionOfObjects":
            return operands(rest, of: value, flattening: false).map(PredicateAggregates.distinct)
        case "@unionOfArrays":
            return operands(rest, of: value, flattening: true)
        case "@distinctUnionOfArrays", "@distinctUnionOfSets":
            return operands(rest, of: value, flattening: true).map(PredicateAggregates.distinct)
        default:
            return nil
        }
    }

    /// What a collection operator works on: the right-hand key path read from each element
    /// of the collection (the elements themselves without one), nils dropped. Applied to a
    /// single object, the right-hand path must lead to a collection (`@sum.items.price`).
    private static func operands(_ rest: ArraySlice<String>, of value: Any?, flattening: Bool) -> [Any]? {
        guard let value = PredicateValues.normalize(value) else { return nil }
        guard let elements = PredicateValues.elements(value) else {
            guard !rest.isEmpty, let inner = PredicateValues.elements(walk(rest, from: value)) else { return nil }
            return inner.compactMap { $0 }
        }
        var result: [Any] = []
        for element in elements {
            let operand = rest.isEmpty ? element : walk(rest, from: element)
            if flattening, let inner = PredicateValues.elements(operand) {
                result.append(contentsOf: inner.compactMap { $0 })
            } else if let operand = PredicateValues.normalize(operand) {
                result.append(operand)
            }
        }
        return result
    }
}

/// Aggregates shared by the collection operators (`@sum`) and the functions (`sum:`).
enum PredicateAggregates {
    /// The sum of the numbers, nils skipped; 0 for none, as KVC's `@sum`. Integers add
    /// exactly (past `Int64` into `Decimal`), a `Double` makes the sum a `Double`. A value
    /// that is not a number makes the sum nil.
    static func sum(_ values: [Any?]) -> Any? {
        var total = PredicateNumber.integer(0)
        for value in values {
            guard PredicateValues.normalize(value) != nil else { continue }
            guard let number = PredicateValues.number(value) else { return nil }
            guard let next = PredicateArithmetic.add(total, number) else { return nil }
            total = next
        }
        return total.runtimeValue
    }

    /// The mean as a `Double`, nils skipped; nil for no values (as SQL's `AVG`).
    static func average(_ values: [Any?]) -> Any? {
        guard let numbers = numbers(values), !numbers.isEmpty else { return nil }
        return numbers.reduce(0, +) / Double(numbers.count)
    }

    /// The smallest (`.orderedAscending`) or largest (`.orderedDescending`) value by the
    /// predicate order, nils skipped; nil for none or for values that do not compare.
    static func extreme(_ values: [Any?], _ direction: ComparisonResult) -> Any? {
        var best: Any?
        for case let value? in values.map(PredicateValues.normalize) {
            guard let current = best else {
                best = value
                continue
            }
            guard let order = PredicateValues.order(value, current) else { return nil }
            if order == direction { best = value }
        }
        return best
    }

    static func median(_ values: [Any?]) -> Any? {
        guard let numbers = numbers(values)?.sorted(), !numbers.isEmpty else { return nil }
        let middle = numbers.count / 2
        return numbers.count % 2 == 1 ? numbers[middle] : (numbers[middle - 1] + numbers[middle]) / 2
    }

    /// The most frequent values, in order of first appearance: an array, as Apple's `mode:`
    /// returns one (several values can tie).
    static func mode(_ values: [Any?]) -> Any? {
        let present = values.compactMap(PredicateValues.normalize)
        guard !present.isEmpty else { return nil }
        var groups: [(value: Any, count: Int)] = []
        for value in present {
            if let index = groups.firstIndex(where: { PredicateValues.equal($0.value, value) }) {
                groups[index].count += 1
            } else {
                groups.append((value, 1))
            }
        }
        let most = groups.map(\.count).max() ?? 0
        return groups.filter { $0.count == most }.map(\.value)
    }

    /// The population standard deviation, as Apple's `stddev:`.
    static func standardDeviation(_ values: [Any?]) -> Any? {
        guard let numbers = numbers(values), !numbers.isEmpty else { return nil }
        let mean = numbers.reduce(0, +) / Double(numbers.count)
        let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
        return variance.squareRoot()
    }

    /// The values without repeats (by predicate equality), in order of first appearance.
    static func distinct(_ values: [Any]) -> [Any] {
        var result: [Any] = []
        for value in values where !result.contains(where: { PredicateValues.equal($0, value) }) {
            result.append(value)
        }
        return result
    }

    /// The values as doubles with nils skipped; nil when one is not a number.
    private static func numbers(_ values: [Any?]) -> [Double]? {
        var result: [Double] = []
        for value in values where PredicateValues.normalize(value) != nil {
            guard let number = PredicateValues.number(value) else { return nil }
            result.append(number.doubleValue)
        }
        return result
    }
}

import Foundation
import Testing

@testable import Strata

/// An entity for the typed accessors' direct reads, with access hooks that count.
final class Gauge: NSManagedObject {
    @Managed var reading: Int32
    @Managed var level: Double
    @Managed var label: String?
    @Managed var measuredAt: Date?
    @Managed var serial: Int
    @Managed var aVeryLongPropertyNameIndeed: String?

    nonisolated(unsafe) var accesses: [String] = []

    override func willAccessValue(forKey key: String?) {
        super.willAccessValue(forKey: key)
        accesses.append("will \(key ?? "-")")
    }

    override func didAccessValue(forKey key: String?) {
        accesses.append("did \(key ?? "-")")
        super.didAccessValue(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        accesses.append("value \(key)")
        return super.value(forKey: key)
    }

    override func willChangeValue(forKey key: String) {
        super.willChangeValue(forKey: key)
        accesses.append("will change \(key)")
    }

    override func didChangeValue(forKey key: String) {
        accesses.append("did change \(key)")
        super.didChangeValue(forKey: key)
    }

    override func setValue(_ value: Any?, forKey key: String) {
        accesses.append("set \(key)")
        super.setValue(value, forKey: key)
    }
}

private func gaugeModel() -> NSManagedObjectModel {
    NSManagedObjectModel {
        Entity("Gauge", className: "Gauge") {
            Attribute("reading", .integer32AttributeType, optional: false, defaultValue: Int32(4))
            Attribute("level", .doubleAttributeType, optional: false, defaultValue: 0.5)
            Attribute("label", .stringAttributeType)
            Attribute("measuredAt", .dateAttributeType)
            Attribute("serial", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Attribute("aVeryLongPropertyNameIndeed", .stringAttributeType)
        }
    }
}

/// Typed accessors read attributes straight from an object's values: what they read must be
/// what `value(forKey:)` gives, with the same hooks and faulting, for every kind of stored value.
@Suite struct TypedAccessTests {
    private let model = gaugeModel()

    private func gauge() throws -> Gauge {
        Gauge(entity: try #require(model.entitiesByName["Gauge"]), insertInto: nil)
    }

    @Test func valuesOfTheStoredTypeReadAsSet() throws {
        let gauge = try gauge()
        #expect(gauge.reading == 4)
        #expect(gauge.level == 0.5)
        gauge.reading = -12
        gauge.level = 3.25
        gauge.label = "boiler, crème"
        let date = Date(timeIntervalSinceReferenceDate: 98_765.5)
        gauge.measuredAt = date
        gauge.aVeryLongPropertyNameIndeed = String(repeating: "long ", count: 30)
        #expect(gauge.reading == -12)
        #expect(gauge.level == 3.25)
        #expect(gauge.label == "boiler, crème")
        #expect(gauge.measuredAt == date)
        #expect(gauge.aVeryLongPropertyNameIndeed == String(repeating: "long ", count: 30))
    }

    @Test func nilAndNullReadAsNilOrTheEmptyValue() throws {
        let gauge = try gauge()
        #expect(gauge.label == nil)
        gauge.setPrimitiveValue(NSNull(), forKey: "label")
        #expect(gauge.label == nil)
        gauge.setPrimitiveValue(nil, forKey: "reading")
        #expect(gauge.reading == 0)
        gauge.setPrimitiveValue(NSNull(), forKey: "level")
        #expect(gauge.level == 0)
    }

    @Test func valuesOfAnotherTypeAreConverted() throws {
        let gauge = try gauge()
        // Integer 64 attributes store `Int64`; an `Int` property reads them converted.
        gauge.serial = 1 << 40
        #expect(gauge.primitiveValue(forKey: "serial") as? Int64 == 1 << 40)
        #expect(gauge.serial == 1 << 40)
        // A value stored in another representation (as some stores and transformers hand
        // them over) is cast as before.
        gauge.values[gauge.layout.index(of: "reading") ?? 0] = NSNumber(value: 77)
        #expect(gauge.reading == 77)
    }

    @Test func eachReadCallsTheAccessHooksOnce() throws {
        let gauge = try gauge()
        gauge.accesses = []
        _ = gauge.reading
        _ = gauge.label
        #expect(gauge.accesses == ["will reading", "did reading", "will label", "did label"])
        // Typed getters of attributes read storage directly (DEVIATIONS.md); key-value coding
        // goes through `value(forKey:)` and the same hooks.
        gauge.accesses = []
        #expect(gauge.value(forKey: "reading") as? Int32 == gauge.reading)
        #expect(gauge.accesses == ["value reading", "will reading", "did reading", "will reading", "did reading"])
    }

    @Test func eachWriteCallsTheChangeHooksOnce() throws {
        let gauge = try gauge()
        gauge.accesses = []
        gauge.reading = 7
        gauge.label = "cellar"
        #expect(gauge.accesses == ["will change reading", "did change reading", "will change label", "did change label"])
        #expect(gauge.reading == 7 && gauge.label == "cellar")
        // Typed setters of attributes store the value directly (DEVIATIONS.md); key-value
        // coding goes through `setValue(_:forKey:)` and the same hooks.
        gauge.accesses = []
        gauge.setValue(Int32(9), forKey: "reading")
        #expect(gauge.accesses == ["set reading", "will change reading", "did change reading"])
        #expect(gauge.reading == 9)
    }

    @Test func aTypedReadFiresTheFault() throws {
        let stack = try ObjectGraphTests.Stack(model, type: NSInMemoryStoreType, at: nil)
        let writer = stack.newContext()
        try writer.performAndWait {
            let gauge = Gauge(context: writer)
            gauge.reading = 31
            gauge.label = "attic"
            try writer.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = NSFetchRequest<Gauge>(entityName: "Gauge")
            request.returnsObjectsAsFaults = true
            let gauge = try #require(try reader.fetch(request).first)
            #expect(gauge.isFault)
            #expect(gauge.reading == 31)
            #expect(!gauge.isFault)
            #expect(gauge.label == "attic")
        }
    }

    @Test(arguments: [false, true])
    func theDirectReadOfASlotAgreesWithTheCast(typed: Bool) {
        let values: [Any?] = [Int32(9), nil, "text", NSNull(), Int64(3)]
        let shape = ValueShape(kinds: typed ? [.int32, .int32, .string, .int32, .int32] : Array(repeating: .any, count: 5))
        let row = ValueRow(values, shape: shape)
        #expect(row.exactValue(at: 0, as: Int32.self) == .some(.some(9)))
        #expect(row.exactValue(at: 1, as: Int32.self) == .some(.none))
        #expect(row.exactValue(at: 2, as: String.self) == .some(.some("text")))
        #expect(row.exactValue(at: 3, as: Int32.self) == .none)
        #expect(row.exactValue(at: 4, as: Int32.self) == .none)
        #expect(row.exactValue(at: 0, as: Int64.self) == .none)
    }
}

/// `EntityLayout.index(of:)` finds literal keys by their representation and every other key
/// by content: both must give `indexByName`'s answer.
@Suite struct EntityLayoutIndexTests {
    @Test func everyFormOfANameFindsItsProperty() throws {
        let entity = try #require(gaugeModel().entitiesByName["Gauge"])
        let layout = entity.layout
        for (name, index) in layout.indexByName {
            #expect(layout.index(of: name) == index)
            // The same text built at run time: on the heap when long, inline when short.
            let rebuilt = String(decoding: Array(name.utf8), as: UTF8.self)
            #expect(layout.index(of: rebuilt) == index)
            let bridged = NSString(string: name) as String
            #expect(layout.index(of: bridged) == index)
        }
        #expect(layout.index(of: "reading") == layout.indexByName["reading"])
        #expect(layout.index(of: "aVeryLongPropertyNameIndeed") == layout.indexByName["aVeryLongPropertyNameIndeed"])
        #expect(layout.index(of: "readinG") == nil)
        #expect(layout.index(of: "") == nil)
        #expect(layout.index(of: "aVeryLongPropertyNameIndeeD") == nil)
        #expect(layout.index(of: String(repeating: "x", count: 7)) == nil)
    }

    @Test func largeEntitiesToo() throws {
        let names = (0..<40).map { $0 % 3 == 0 ? "property\($0)" : "aRatherLongPropertyName\($0)" }
        let model = NSManagedObjectModel {
            Entity("Wide") {
                for name in names { Attribute(name, .integer64AttributeType) }
            }
        }
        let layout = try #require(model.entitiesByName["Wide"]).layout
        for name in names {
            #expect(layout.index(of: name) == layout.indexByName[name])
            #expect(layout.index(of: String(decoding: Array(name.utf8), as: UTF8.self)) == layout.indexByName[name])
        }
        #expect(layout.index(of: "property1") == nil)
        #expect(layout.index(of: "aRatherLongPropertyName0") == nil)
    }

    @Test func aLongNameIsRememberedByItsLiteral() throws {
        let layout = try #require(gaugeModel().entitiesByName["Gauge"]).layout
        let position = try #require(layout.indexByName["aVeryLongPropertyNameIndeed"])
        #expect(layout.rememberedIndex(ofLiteral: "aVeryLongPropertyNameIndeed") == nil)
        #expect(layout.index(of: "aVeryLongPropertyNameIndeed") == position)
        // Found by content once, the literal is then found by its address.
        #expect(layout.rememberedIndex(ofLiteral: "aVeryLongPropertyNameIndeed") == position)
        #expect(layout.index(of: "aVeryLongPropertyNameIndeed") == position)
        // Another literal of the same length, a string built at run time, a short literal: none
        // is taken for it.
        #expect(layout.rememberedIndex(ofLiteral: "aVeryLongPropertyNameIndeeD") == nil)
        #expect(layout.index(of: "aVeryLongPropertyNameIndeeD") == nil)
        let built = String(decoding: Array("aVeryLongPropertyNameIndeed".utf8), as: UTF8.self)
        #expect(layout.rememberedIndex(ofLiteral: built) == nil)
        #expect(layout.index(of: built) == position)
        #expect(layout.rememberedIndex(ofLiteral: "reading") == nil)
        // The typed accessor reads through it.
        let gauge = Gauge(entity: try #require(gaugeModel().entitiesByName["Gauge"]), insertInto: nil)
        gauge.aVeryLongPropertyNameIndeed = "value"
        #expect(gauge.aVeryLongPropertyNameIndeed == "value")
    }

    @Test func aChangedEntityGetsANewLayoutAndTheOldOneStaysValid() throws {
        let entity = NSEntityDescription()
        entity.name = "Growing"
        let first = NSAttributeDescription()
        first.name = "first"
        first.attributeType = .integer64AttributeType
        entity.properties = [first]
        let before = entity.layout
        #expect(entity.layout === before)
        #expect(before.index(of: "second") == nil)
        let second = NSAttributeDescription()
        second.name = "second"
        second.attributeType = .stringAttributeType
        entity.properties = [first, second]
        // The layout read without the lock is the new one, not the one published before.
        let after = entity.layout
        #expect(after !== before)
        #expect(after.index(of: "second") == 1)
        #expect(entity.layout === after)
        // A reader that took the old layout just before the change still holds a whole one.
        #expect(before.index(of: "first") == 0)
        #expect(before.properties.count == 1)
    }
}

/// A gauge whose change hook sets its serial whenever its label changes, and (against the
/// documented rule) does not pass changes of `reading` on to `super`.
final class SerialGauge: NSManagedObject {
    @Managed var reading: Int32
    @Managed var label: String?
    @Managed var serial: Int

    override func didChangeValue(forKey key: String) {
        if key == "reading" { return }
        if key == "label" { serial += 1 }
        super.didChangeValue(forKey: key)
    }
}

/// Setters tell `didChangeValue(forKey:)` the key's position so that it is not looked up again;
/// a change is recorded under the key the hook is given, whatever an override does in between.
@Suite struct ChangeHookKeyTests {
    private let model = NSManagedObjectModel {
        Entity("SerialGauge", className: "SerialGauge") {
            Attribute("reading", .integer32AttributeType, optional: false, defaultValue: Int32(0))
            Attribute("label", .stringAttributeType)
            Attribute("serial", .integer64AttributeType, optional: false, defaultValue: Int64(0))
        }
    }

    private func gauge() throws -> SerialGauge {
        SerialGauge(entity: try #require(model.entitiesByName["SerialGauge"]), insertInto: nil)
    }

    @Test func aChangeMadeInsideTheHookIsRecordedWithTheOuterOne() throws {
        let gauge = try gauge()
        gauge.label = "boiler"
        #expect(gauge.serial == 1)
        #expect(Set(gauge.changedValues().keys) == ["label", "serial"])
        gauge.setValue("kiln", forKey: "label")
        #expect(gauge.serial == 2)
        #expect(gauge.changedValues()["label"] as? String == "kiln")
    }

    @Test func aHookThatSkipsSuperLeavesNoPositionForTheNextKey() throws {
        let gauge = try gauge()
        gauge.reading = 7
        #expect(gauge.changedValues().isEmpty)
        gauge.willChangeValue(forKey: "serial")
        gauge.setPrimitiveValue(9, forKey: "serial")
        gauge.didChangeValue(forKey: "serial")
        #expect(Set(gauge.changedValues().keys) == ["serial"])
        #expect(gauge.serial == 9)
    }
}

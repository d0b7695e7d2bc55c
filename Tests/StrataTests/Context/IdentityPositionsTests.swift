import Foundation
import Testing

@testable import Strata

/// The identity table behind `ObjectSet`: every sequence of operations must answer as a
/// `Dictionary<ObjectIdentifier, Int>` does.
@Suite struct IdentityPositionsTests {
    @Test func randomOperationsAgreeWithADictionary() {
        let objects = (0..<600).map { _ in NSObject() }
        var table = IdentityPositions()
        var model: [ObjectIdentifier: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let key = ObjectIdentifier(objects[Int.random(in: 0..<objects.count, using: &generator)])
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let inserted = table.insert(key, step)
                #expect(inserted == (model[key] == nil))
                if model[key] == nil { model[key] = step }
            case 5..<8:
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
            default:
                #expect(table[key] == model[key])
            }
            #expect(table.count == model.count)
            if step == 10_000 {
                table.removeAll()
                model.removeAll()
                #expect(table.isEmpty)
            }
        }
        for object in objects {
            #expect(table[ObjectIdentifier(object)] == model[ObjectIdentifier(object)])
        }
    }

    @Test func removedSlotsAreReusedWithoutLosingOthers() {
        let objects = (0..<100).map { _ in NSObject() }
        var table = IdentityPositions()
        for round in 0..<50 {
            for (index, object) in objects.enumerated() { table.insert(ObjectIdentifier(object), index + round) }
            #expect(table.count == objects.count)
            for (index, object) in objects.enumerated() where index % 2 == 0 {
                #expect(table.removeValue(forKey: ObjectIdentifier(object)) == index + round)
            }
            #expect(table.count == objects.count / 2)
            for (index, object) in objects.enumerated() {
                #expect(table[ObjectIdentifier(object)] == (index % 2 == 0 ? nil : index + round))
            }
            for (index, object) in objects.enumerated() where index % 2 == 1 {
                table.removeValue(forKey: ObjectIdentifier(object))
            }
            #expect(table.isEmpty)
        }
    }
}

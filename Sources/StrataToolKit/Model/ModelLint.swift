import Foundation
import Strata

/// One problem `strata model validate` reports: where (file, line, entity, property), how
/// serious, and what is wrong. Printed compiler-style (`file:line: error: message`) so that
/// editors and CI logs link it to the line, or as JSON.
struct ModelProblem: Encodable, Equatable {
    /// `error` (Core Data refuses the model), `warning` (it runs with it, but it is likely a
    /// mistake or breaks a rule asked for, such as CloudKit's) or `note` (worth knowing).
    var severity: String
    var file: String?
    var line: Int?
    var entity: String?
    var property: String?
    var message: String
    /// The check that found it: `model` for Strata's loader, else the name of the lint rule.
    var rule: String

    /// `file:line: severity: entity E, property p: message`.
    var compilerStyle: String {
        let place = (file ?? "<model>") + (line.map { ":\($0)" } ?? "")
        let subject = [entity.map { "entity \($0)" }, property.map { "property \($0)" }].compactMap { $0 }
        return "\(place): \(severity): " + (subject.isEmpty ? "" : subject.joined(separator: ", ") + ": ") + message
    }
}

/// The checks of `strata model validate`: every problem Strata's loader finds (with the
/// severity Core Data gives it), then Core Data's warnings worth knowing, and CloudKit's
/// model rules when asked (SYNC.md §1: no uniqueness constraints; every relationship
/// optional and with an inverse; no Deny delete rule).
struct ModelLint {
    let source: ModelSource
    let cloudKit: Bool

    /// The loader's problems, then each entity's lint, in entity order.
    func problems() -> [ModelProblem] {
        let file = source.contents.map(ModelSource.display) ?? source.path
        var problems = source.problems.map { error in
            ModelProblem(
                severity: error.severity == .error ? "error" : "warning", file: error.file.map(ModelSource.display) ?? file,
                line: error.line,
                entity: error.entity, property: error.property, message: error.message, rule: "model")
        }
        let entities = source.model.entities.sorted {
            ($0.modelFileLine ?? 0, $0.name ?? "") < ($1.modelFileLine ?? 0, $1.name ?? "")
        }
        for entity in entities {
            problems += lint(entity, file: file)
        }
        return problems
    }

    /// The lint rules of one entity's relationships and constraints.
    private func lint(_ entity: NSEntityDescription, file: String) -> [ModelProblem] {
        var problems: [ModelProblem] = []
        func report(_ severity: String, _ rule: String, _ property: NSPropertyDescription?, _ message: String) {
            problems.append(
                ModelProblem(
                    severity: severity, file: file, line: property?.modelFileLine ?? entity.modelFileLine, entity: entity.name,
                    property: property?.name, message: message, rule: rule))
        }
        let relationships = entity.declaredProperties.compactMap { $0 as? NSRelationshipDescription }
        for relationship in relationships {
            if relationship.inverseRelationshipName == nil {
                report(
                    cloudKit ? "error" : "warning", cloudKit ? "cloudkit-inverse" : "no-inverse", relationship,
                    "the relationship has no inverse; Core Data then cannot keep both sides consistent"
                        + (cloudKit ? " (CloudKit requires an inverse for every relationship)" : ""))
            }
            if relationship.isToMany && relationship.maxCount == 0 && relationship.minCount > 0 {
                report(
                    "note", "to-many-without-max", relationship,
                    "the to-many relationship has a minimum count (\(relationship.minCount)) and no maximum")
            }
            if cloudKit && !relationship.isOptional {
                report("error", "cloudkit-optional", relationship, "CloudKit requires every relationship to be optional")
            }
            if cloudKit && relationship.deleteRule == .denyDeleteRule {
                report("error", "cloudkit-deny", relationship, "CloudKit does not allow the Deny delete rule")
            }
        }
        if cloudKit {
            problems += cloudKitAttributeProblems(entity, file: file)
            problems += cloudKitConfigurationProblems(entity, relationships, file: file)
            for relationship in relationships where relationship.isOrdered {
                report("warning", "cloudkit-ordered", relationship, "CloudKit mirroring does not keep ordered relationships")
            }
        }
        if cloudKit && !entity.uniquenessConstraints.isEmpty {
            let names = entity.uniquenessConstraintNames.map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", ")
            report("error", "cloudkit-unique", nil, "CloudKit does not allow uniqueness constraints: \(names)")
        }
        return problems
    }

    /// Apple's documentation: Undefined and objectID attribute types are not supported. Not in
    /// Apple's documentation, but widely reported: a required attribute needs a default value.
    private func cloudKitAttributeProblems(_ entity: NSEntityDescription, file: String) -> [ModelProblem] {
        var problems: [ModelProblem] = []
        for case let attribute as NSAttributeDescription in entity.declaredProperties where !attribute.isTransient {
            let problem = { (severity: String, rule: String, message: String) in
                ModelProblem(
                    severity: severity, file: file, line: attribute.modelFileLine ?? entity.modelFileLine, entity: entity.name,
                    property: attribute.name, message: message, rule: rule)
            }
            if attribute.attributeType == .undefinedAttributeType || attribute.attributeType == .objectIDAttributeType {
                problems.append(
                    problem(
                        "error", "cloudkit-type",
                        "CloudKit does not support \(attribute.attributeType.xcodeModelName ?? "Undefined") attributes"))
            } else if !attribute.isOptional && attribute.defaultValue == nil && !(attribute is NSDerivedAttributeDescription) {
                problems.append(
                    problem(
                        "warning", "cloudkit-default",
                        "a required attribute needs a default value for CloudKit (records arrive partially)"))
            }
        }
        return problems
    }

    /// Apple's documentation: entities in a configuration must not have relationships to
    /// entities in another configuration.
    private func cloudKitConfigurationProblems(
        _ entity: NSEntityDescription, _ relationships: [NSRelationshipDescription], file: String
    ) -> [ModelProblem] {
        let model = source.model
        var problems: [ModelProblem] = []
        for configuration in model.configurations {
            let members = Set((model.entities(forConfigurationName: configuration) ?? []).compactMap(\.name))
            guard let name = entity.name, members.contains(name) else { continue }
            for relationship in relationships {
                guard let destination = relationship.destinationName, !members.contains(destination) else { continue }
                problems.append(
                    ModelProblem(
                        severity: "error", file: file, line: relationship.modelFileLine ?? entity.modelFileLine, entity: name,
                        property: relationship.name,
                        message: "configuration \(configuration) holds \(name) but not \(destination); CloudKit does not allow"
                            + " relationships between configurations",
                        rule: "cloudkit-configuration"))
            }
        }
        return problems
    }
}

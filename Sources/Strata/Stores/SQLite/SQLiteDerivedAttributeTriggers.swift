import Foundation

/// The trigger sets of the derivations that read other rows. `SOURCE` triggers sit on the
/// table of the entity that owns the derived attribute, `PARAMETER` triggers on the table
/// whose rows it reads (the destination table, or the join table of a many-to-many).
extension SQLiteDerivedAttributes {
    /// `author.name`, `uppercase:(author.name)`: the attribute of the to-one destination,
    /// copied when the row is inserted or points elsewhere (`SOURCE`), and when the
    /// destination is inserted or its attribute changes (`PARAMETER`). A destination's deletion
    /// needs no trigger: the delete rule clears or deletes the rows that pointed to it.
    struct ToOneCopy {
        let target: Target
        /// The row's foreign-key column of the to-one relationship.
        let foreignKey: String
        let destinationTable: String
        /// The copied column of the destination.
        let column: String
        /// Applies the string function, if any, to a column expression.
        let wrap: (String) -> String

        var maintenance: Maintenance {
            let (table, derived, key) = (target.table, target.column, foreignKey)
            let copy =
                "UPDATE \(table) SET \(derived) = "
                + "(SELECT \(wrap(column)) FROM \(destinationTable) WHERE Z_PK = NEW.\(key))"
            let own = "Z_PK = NEW.Z_PK"
            let pointing = "\(key) = NEW.Z_PK\(target.andEntity)"
            let push = "UPDATE \(table) SET \(derived) = \(wrap("NEW.\(column)")) WHERE \(pointing)"
            let triggers = [
                trigger(
                    target.name(table, "SOURCE_INSERT"), "AFTER INSERT ON \(table)", when: target.whenNewEntity,
                    ["\(copy) WHERE \(own)", target.callback(inserted: true, where: own)]),
                trigger(
                    target.name(table, "SOURCE_UPDATE"), "AFTER UPDATE OF \(key) ON \(table)",
                    when: target.whenNewEntity,
                    ["\(copy) WHERE \(own)", target.callback(inserted: false, where: own)]),
                trigger(
                    target.name(destinationTable, "PARAMETER_INSERT"), "AFTER INSERT ON \(destinationTable)",
                    [push, target.callback(inserted: true, where: pointing)]),
                trigger(
                    target.name(destinationTable, "PARAMETER_UPDATE"),
                    "AFTER UPDATE OF \(column) ON \(destinationTable)",
                    [push, target.callback(inserted: false, where: pointing)]),
            ]
            let recompute =
                "UPDATE \(table) SET \(derived) = (SELECT \(wrap("d.\(column)")) FROM \(destinationTable) AS d "
                + "WHERE d.Z_PK = \(table).\(key))\(target.whereEntity)"
            return target.maintenance(triggers, recompute: recompute)
        }
    }

    /// `pages.@count` and `lines.@sum.amount` over a one-to-many relationship, whose
    /// destination rows hold the owner's key in `foreignKey`: Apple's five triggers, which
    /// add and subtract as destination rows come, move and go, and count afresh when the
    /// owner is inserted. `@count` is Apple's text exactly; `@sum` adds the summed value
    /// instead of 1, treating NULL as 0.
    struct ToManyAggregate {
        let target: Target
        let destinationTable: String
        let foreignKey: String
        /// The summed column of the destination; `nil` for `@count`.
        let summed: String?

        var maintenance: Maintenance {
            let (table, derived, key, other) = (target.table, target.column, foreignKey, destinationTable)
            let count = summed == nil
            let added = summed.map { "IFNULL(NEW.\($0), 0)" } ?? "1"
            let removed = summed.map { "IFNULL(OLD.\($0), 0)" } ?? "1"
            // Apple's @count adds to a NULL count only on insert; a sum treats NULL as 0 throughout.
            let current = count ? derived : "IFNULL(\(derived), 0)"
            func change(_ row: String, _ expression: String) -> [String] {
                let owner = "Z_PK = \(row).\(key)\(target.andEntity)"
                return [
                    "UPDATE \(table) SET \(derived) = \(expression) WHERE \(owner)",
                    target.callback(inserted: false, where: owner),
                ]
            }
            let watched = summed.map { "\(key), \($0)" } ?? key
            let aggregate = summed.map { "SUM(\($0))" } ?? "COUNT(\(key))"
            let triggers = [
                trigger(
                    target.name(other, "PARAMETER_INSERT"), "AFTER INSERT ON \(other)",
                    when: " WHEN (NEW.\(key) NOT NULL)",
                    change("NEW", "IFNULL(\(derived), 0) + \(added)")),
                trigger(
                    target.name(other, "PARAMETER_UPDATE_INCREMENT"), "AFTER UPDATE OF \(watched) ON \(other)",
                    when: " WHEN (NEW.\(key) NOT NULL)", change("NEW", "\(current) + \(added)")),
                trigger(
                    target.name(other, "PARAMETER_UPDATE_DECREMENT"), "AFTER UPDATE OF \(watched) ON \(other)",
                    when: " WHEN (OLD.\(key) NOT NULL)", change("OLD", "\(current) - \(removed)")),
                trigger(
                    target.name(other, "PARAMETER_DELETE"), "AFTER DELETE ON \(other)",
                    when: " WHEN (OLD.\(key) NOT NULL)",
                    change("OLD", "\(current) - \(removed)")),
                trigger(
                    target.name(table, "SOURCE_INSERT"), "AFTER INSERT ON \(table)", when: target.whenNewEntity,
                    [
                        "UPDATE \(table) SET \(derived) = "
                            + "(SELECT IFNULL(\(aggregate), 0) FROM \(other) WHERE \(key) = NEW.Z_PK) "
                            + "WHERE Z_PK = NEW.Z_PK",
                        target.callback(inserted: true, where: "Z_PK = NEW.Z_PK"),
                    ]),
            ]
            let recomputed = summed.map { "SUM(d.\($0))" } ?? "COUNT(d.\(key))"
            let recompute =
                "UPDATE \(table) SET \(derived) = (SELECT IFNULL(\(recomputed), 0) FROM \(other) AS d "
                + "WHERE d.\(key) = \(table).Z_PK)\(target.whereEntity)"
            return target.maintenance(triggers, recompute: recompute)
        }
    }

    /// `tags.@count` and `tags.@sum.weight` over a many-to-many relationship: through its
    /// join table, whose `selfColumn` holds the owner's key and `otherColumn` the destination's.
    struct JoinAggregate {
        let target: Target
        let joinTable: String
        let selfColumn: String
        let otherColumn: String
        let destinationTable: String

        /// As Apple counts through a join table: +1 and −1 as links come and go, a fresh
        /// count when the owner is inserted.
        var countMaintenance: Maintenance {
            let (table, derived, join, owner) = (target.table, target.column, joinTable, selfColumn)
            func change(_ row: String, _ expression: String) -> [String] {
                let condition = "Z_PK = \(row).\(owner)\(target.andEntity)"
                return [
                    "UPDATE \(table) SET \(derived) = \(expression) WHERE \(condition)",
                    target.callback(inserted: false, where: condition),
                ]
            }
            let triggers = [
                trigger(
                    target.name(join, "PARAMETER_INSERT"), "AFTER INSERT ON \(join)",
                    change("NEW", "IFNULL(\(derived), 0) + 1")),
                trigger(
                    target.name(join, "PARAMETER_DELETE"), "AFTER DELETE ON \(join)", change("OLD", "\(derived) - 1")),
                trigger(
                    target.name(table, "SOURCE_INSERT"), "AFTER INSERT ON \(table)", when: target.whenNewEntity,
                    [
                        "UPDATE \(table) SET \(derived) = "
                            + "(SELECT IFNULL(COUNT(\(owner)), 0) FROM \(join) WHERE \(owner) = NEW.Z_PK) "
                            + "WHERE Z_PK = NEW.Z_PK",
                        target.callback(inserted: false, where: "Z_PK = NEW.Z_PK"),
                    ]),
            ]
            let recompute =
                "UPDATE \(table) SET \(derived) = (SELECT IFNULL(COUNT(j.\(owner)), 0) FROM \(join) AS j "
                + "WHERE j.\(owner) = \(table).Z_PK)\(target.whereEntity)"
            return target.maintenance(triggers, recompute: recompute)
        }

        /// Apple's SQL store refuses `@sum` through a join table; Strata sums afresh whenever
        /// a link comes or goes, or a linked row's value changes.
        func sumMaintenance(summed: String) -> Maintenance {
            let (table, derived, join, owner) = (target.table, target.column, joinTable, selfColumn)
            func total(_ key: String) -> String {
                "(SELECT IFNULL(SUM(d.\(summed)), 0) FROM \(join) AS j JOIN \(destinationTable) AS d "
                    + "ON d.Z_PK = j.\(otherColumn) WHERE j.\(owner) = \(key))"
            }
            func recount(_ condition: String, inserted: Bool = false) -> [String] {
                [
                    "UPDATE \(table) SET \(derived) = \(total("\(table).Z_PK")) WHERE \(condition)",
                    target.callback(inserted: inserted, where: condition),
                ]
            }
            let linked = "Z_PK IN (SELECT \(owner) FROM \(join) WHERE \(otherColumn) = NEW.Z_PK)\(target.andEntity)"
            let triggers = [
                trigger(
                    target.name(join, "PARAMETER_INSERT"), "AFTER INSERT ON \(join)",
                    recount("Z_PK = NEW.\(owner)\(target.andEntity)")),
                trigger(
                    target.name(join, "PARAMETER_DELETE"), "AFTER DELETE ON \(join)",
                    recount("Z_PK = OLD.\(owner)\(target.andEntity)")),
                trigger(
                    target.name(destinationTable, "PARAMETER_UPDATE"),
                    "AFTER UPDATE OF \(summed) ON \(destinationTable)", recount(linked)),
                trigger(
                    target.name(table, "SOURCE_INSERT"), "AFTER INSERT ON \(table)", when: target.whenNewEntity,
                    recount("Z_PK = NEW.Z_PK", inserted: true)),
            ]
            let recompute = "UPDATE \(table) SET \(derived) = \(total("\(table).Z_PK"))\(target.whereEntity)"
            return target.maintenance(triggers, recompute: recompute)
        }
    }
}

"""Planning the next test collection: topics by statistical power, judgments by budget.

Rooms, bottom up:

:mod:`.power`      power, topics needed and detectable differences of the paired t-test, the
                   one-way ANOVA and the confidence interval (exact and Sakai's approximations)
"""

"""The four agents of de Mesentier Silva, Lee, Togelius and Nealen,
"AI-based Playtesting of Contemporary Board Games" (FDG 2017): one module
each (:mod:`.destination_hungry`, :mod:`.route_focus`, :mod:`.one_step`,
:mod:`.long_route`), and :mod:`.shared`, what they share (the routine phases,
the minimum keep, their common ``choose`` frame).
"""
